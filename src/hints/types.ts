/**
 * A hint is the only thing the gateway keeps of an inbound event: "look at object K in
 * cluster C". It carries no revision and no health; those are always read from the cluster.
 */

/** Identity of an application object in one cluster. */
export interface HintKey {
  cluster: string;
  /** API group without version, e.g. helm.toolkit.fluxcd.io; '' for the core group. */
  group: string;
  kind: string;
  namespace: string;
  name: string;
}

/** A stable string form of a HintKey, used for coalescing and maps. */
export function hintKeyString(key: HintKey): string {
  return `${key.cluster}|${key.group}|${key.kind}|${key.namespace}|${key.name}`;
}

/** Where a hint came from, for logs and metrics only. */
export type HintSource = 'flux-event' | 'legacy-webhook' | 'resync' | 'retry';

/** Result of offering a hint to the queue. */
export type EnqueueResult = 'queued' | 'coalesced' | 'dropped-unreferenced' | 'full';

/** The sink that ingress routes feed; implemented by the hint queue. */
export interface HintSink {
  offer(key: HintKey, source: HintSource): EnqueueResult;
}

/** Requests to re-check whole pipelines (legacy webhook, approvals), by namespace/name. */
export interface PipelineTrigger {
  /** Returns false when the pipeline is unknown or the queue is full. */
  requestPipeline(
    namespace: string,
    name: string,
    source: HintSource,
  ): 'queued' | 'unknown' | 'full';
}
