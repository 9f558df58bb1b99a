/**
 * A hint is the only thing the gateway keeps of an inbound event: "look at object K in
 * cluster C". It carries no revision and no health; those are always read from the cluster.
 * A re-check asks for one whole Pipeline to be evaluated again.
 */
import type { PipelineId } from '../pipeline/id.js';
import type { ObjectKey } from '../pipeline/object-key.js';

/**
 * Where a hint came from, for logs and metrics only; `stale-status` is our own: the status shows
 * a newer observation of the object than this replica's read.
 */
export type HintSource = 'flux-event' | 'legacy-webhook' | 'stale-status';

/** Why a whole Pipeline is re-checked, for logs and metrics only. */
export type RecheckSource =
  'legacy-webhook' | 'resync' | 'hint' | 'spec-change' | 'authorization' | 'check-result' | 'train';

/** Result of offering a hint to the queue. */
export type EnqueueResult = 'queued' | 'coalesced' | 'dropped-unreferenced' | 'full';

/** The sink that ingress routes feed; implemented by the hint queue. */
export interface HintSink {
  offer(key: ObjectKey, source: HintSource): EnqueueResult;
}

/** Result of asking for a re-check: 'unknown' when no such Pipeline is loaded. */
export type RecheckResult = 'queued' | 'unknown' | 'full';

/** Requests to re-check whole Pipelines (legacy webhook, resync, hinted reads). */
export interface PipelineTrigger {
  requestPipeline(id: PipelineId, source: RecheckSource): RecheckResult;
}
