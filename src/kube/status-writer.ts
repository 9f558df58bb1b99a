/**
 * The one writer of the Pipeline status subresource. Every replica and every stage shares the
 * status, so nobody writes it directly: a stage states its change as a pure function of the
 * stored Pipeline, and this writer applies it with the stored resourceVersion as precondition.
 * On a 409 it reads the object again and re-applies the change to what is stored now, under one
 * bounded policy (CONFLICT_POLICY): the change itself decides whether it still applies (a lost
 * claim does not, an authorization does). A change that leaves the status as stored is never
 * written, so an idle fleet causes no writes.
 */
import type { Scheduler } from '../clock.js';
import type { Pipeline, PipelineStatus } from '../pipeline/pipeline-resource.js';
import { asPipeline } from './pipeline-check.js';
import { jsonEqual } from '../pipeline/json-equal.js';
import type { PipelineWriter } from './ports.js';

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

/** How a 409 is answered: re-read and re-apply, up to `maxAttempts` writes in all. */
export interface ConflictPolicy {
  maxAttempts: number;
  /** Before the n-th re-read (n >= 2) wait a random time up to base * 2^(n-2), capped. */
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * Six attempts, the first re-read at once and then up to 25, 50, 100 and 200 ms apart
 * (jittered, so two replicas racing stop meeting each other): about 0.4 s at most in all.
 */
export const CONFLICT_POLICY: ConflictPolicy = { maxAttempts: 6, baseDelayMs: 25, maxDelayMs: 400 };

/** What one write attempt ended with, for metrics. */
export type WriteAttempt = 'written' | 'conflict' | 'unchanged' | 'contended';

/** What the writer needs besides the port. */
export interface StatusWriterOptions {
  scheduler: Pick<Scheduler, 'setTimer'>;
  random?: () => number;
  policy?: ConflictPolicy;
  /** Called once per attempt's result (metrics). */
  onAttempt?: (result: WriteAttempt) => void;
}

/** The one writer of Pipeline statuses; see the module comment. */
export class StatusWriter {
  private readonly policy: ConflictPolicy;
  private readonly random: () => number;

  constructor(
    private readonly port: PipelineWriter,
    private readonly options: StatusWriterOptions,
  ) {
    this.policy = options.policy ?? CONFLICT_POLICY;
    this.random = options.random ?? Math.random;
  }

  /** A fresh GET of the Pipeline from the API server (never a cache); undefined when gone. */
  async read(ref: { namespace: string; name: string }): Promise<Pipeline | undefined> {
    const fresh = await this.port.get(ref.namespace, ref.name);
    return fresh === undefined ? undefined : asPipeline(fresh);
  }

  /**
   * Applies `change` to `pipeline` (as last seen; its resourceVersion is the precondition) and
   * to every fresh read after a 409. Rejects only on API errors other than 409 and 404.
   */
  async apply<V>(pipeline: Pipeline, change: StatusChange<V>): Promise<StatusWrite<V>> {
    let stored = pipeline;
    for (let attempt = 1; ; attempt++) {
      const verdict = change(stored);
      if ('keep' in verdict) return this.kept(stored, verdict.keep);
      if (jsonEqual(verdict.write, stored.status ?? {})) return this.kept(stored, verdict.verdict);
      const written = await this.put(stored, verdict.write);
      if (written === 'Gone') return { outcome: 'Gone' };
      if (written !== 'Conflict') {
        this.options.onAttempt?.('written');
        return { outcome: 'Written', pipeline: written, verdict: verdict.verdict };
      }
      this.options.onAttempt?.('conflict');
      if (attempt >= this.policy.maxAttempts) {
        this.options.onAttempt?.('contended');
        return { outcome: 'Contended', attempts: attempt };
      }
      await this.pause(attempt);
      const fresh = await this.read(pipeline.metadata);
      if (fresh === undefined) return { outcome: 'Gone' };
      stored = fresh;
    }
  }

  private kept<V>(pipeline: Pipeline, verdict: V): StatusWrite<V> {
    this.options.onAttempt?.('unchanged');
    return { outcome: 'Kept', pipeline, verdict };
  }

  /** One conditional PUT; a thrown error is Gone when a fresh GET finds no object. */
  private async put(
    stored: Pipeline,
    status: PipelineStatus,
  ): Promise<Pipeline | 'Conflict' | 'Gone'> {
    requireResourceVersion(stored);
    try {
      const result = await this.port.replaceStatus({ ...stored, status });
      return result.conflict ? 'Conflict' : asPipeline(result.value);
    } catch (err) {
      if (await this.isGone(stored)) return 'Gone';
      throw err;
    }
  }

  private async isGone(pipeline: Pipeline): Promise<boolean> {
    try {
      return (await this.read(pipeline.metadata)) === undefined;
    } catch {
      return false;
    }
  }

  private pause(attempt: number): Promise<void> {
    if (attempt < 2) return Promise.resolve();
    const cap = Math.min(this.policy.maxDelayMs, this.policy.baseDelayMs * 2 ** (attempt - 2));
    const ms = Math.round(this.random() * cap);
    return new Promise((resolve) => this.options.scheduler.setTimer(ms, resolve));
  }
}

/**
 * A write without a resourceVersion would be unconditional in Kubernetes and could overwrite
 * another replica's claim, so every status write insists on one.
 */
export function requireResourceVersion(pipeline: Pipeline): string {
  const rv = pipeline.metadata.resourceVersion;
  if (rv === undefined || rv === '') {
    throw new TypeError(
      `Pipeline ${pipeline.metadata.namespace}/${pipeline.metadata.name} has no resourceVersion; status writes need one as precondition`,
    );
  }
  return rv;
}
