/**
 * The one writer of the Pipeline status subresource. Every replica and every stage shares the
 * status, so nobody writes it directly: a stage states its change as a pure function of the
 * stored Pipeline, and this writer applies it with the stored resourceVersion as precondition.
 * On a 409 it reads the object again and re-applies the change to what is stored now, under one
 * bounded policy (CONFLICT_POLICY): the change itself decides whether it still applies (a lost
 * claim does not, an authorization does). A change that leaves the status as stored is never
 * written, so an idle fleet causes no writes.
 */
import type { Pipeline, PipelineStatus } from '../pipeline/pipeline-resource.js';
import {
  requireVersion,
  writeConditionally,
  type ConditionalPort,
  type ConditionalWriterOptions,
} from './conditional-write.js';
import { asPipeline } from './pipeline-check.js';
import type { PipelineWriter, StatusAnswer } from './ports.js';

/** What a change makes of the stored Pipeline: a status to write, or no write at all. */
export type ChangeVerdict<V> = { write: PipelineStatus; verdict: V } | { keep: V };

/** A pure change of the status: called with the stored Pipeline, again after every 409. */
export type StatusChange<V> = (stored: Pipeline) => ChangeVerdict<V>;

/**
 * Written: the change landed; `pipeline` is the stored object after it. Kept: nothing was
 * written (the change said so, or it left the status as stored); `pipeline` is what the change
 * saw. Gone: the Pipeline was deleted. Contended: every attempt of the policy met a 409.
 */
export type StatusWrite<V> =
  | { outcome: 'Written'; pipeline: Pipeline; verdict: V }
  | { outcome: 'Kept'; pipeline: Pipeline; verdict: V }
  | { outcome: 'Gone' }
  | { outcome: 'Contended'; attempts: number };

export { CONFLICT_POLICY } from './conditional-write.js';
export type { ConflictPolicy, WriteAttempt } from './conditional-write.js';

/**
 * What a status write rejects with while writes are held (StatusWriterOptions.held): the
 * installed Pipeline CRD would prune `lost`, so what is written would not be kept. Nothing was
 * put; a write that would have changed nothing still resolves as Kept.
 */
export class StatusWritesHeld extends Error {
  constructor(readonly lost: readonly string[]) {
    super(
      `status writes are held: the installed Pipeline CRD would prune ${lost.join(', ')}; install this project's CRD (manifests/crd/pipelines.weave.works_pipelines.yaml)`,
    );
    this.name = 'StatusWritesHeld';
  }
}

/** What the writer needs besides the port. */
export interface StatusWriterOptions extends ConditionalWriterOptions {
  /**
   * The last step of every write that happens (not of a change that keeps the status): what
   * every status write adds to what its change computed, from the object it is applied to (the
   * notification events the new status owes: notify/outbox-record.ts).
   */
  complete?: (stored: Pipeline, next: PipelineStatus) => PipelineStatus;
}

/** The one writer of Pipeline statuses; see the module comment. */
export class StatusWriter {
  /** The conditional port per kind of answer (StatusAnswer). */
  private readonly conditional: Record<StatusAnswer, ConditionalPort<Pipeline, PipelineStatus>>;

  constructor(
    private readonly port: PipelineWriter,
    private readonly options: StatusWriterOptions,
  ) {
    this.conditional = { version: this.portFor('version'), stored: this.portFor('stored') };
  }

  /** A fresh GET of the Pipeline from the API server (never a cache); undefined when gone. */
  async read(ref: { namespace: string; name: string }): Promise<Pipeline | undefined> {
    const fresh = await this.port.get(ref.namespace, ref.name);
    return fresh === undefined ? undefined : asPipeline(fresh);
  }

  /**
   * Applies `change` to `pipeline` (as last seen; its resourceVersion is the precondition) and
   * to every fresh read after a 409 (src/kube/conditional-write.ts). Rejects only on API errors
   * other than 409 and 404. A Written `pipeline` is the object sent with its new
   * resourceVersion, or with `answer` 'stored' the API server's answer (what its CRD kept).
   */
  async apply<V>(
    pipeline: Pipeline,
    change: StatusChange<V>,
    answer: StatusAnswer = 'version',
  ): Promise<StatusWrite<V>> {
    const port = this.conditional[answer];
    const result = await writeConditionally(port, this.options, pipeline, change);
    if (result.outcome === 'Written' || result.outcome === 'Kept') {
      const { object, ...rest } = result;
      return { ...rest, pipeline: object };
    }
    return result;
  }

  private portFor(answer: StatusAnswer): ConditionalPort<Pipeline, PipelineStatus> {
    return {
      kind: 'Pipeline',
      read: (ref) => this.read(ref),
      replace: async (stored, computed) => {
        const status = this.options.complete?.(stored, computed) ?? computed;
        const result = await this.port.replaceStatus({ ...stored, status }, answer);
        return result.conflict ? result : { conflict: false, value: asPipeline(result.value) };
      },
    };
  }
}

/**
 * A write without a resourceVersion would be unconditional in Kubernetes and could overwrite
 * another replica's claim, so every status write insists on one.
 */
export function requireResourceVersion(pipeline: Pipeline): string {
  return requireVersion('Pipeline', pipeline);
}
