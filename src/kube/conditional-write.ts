/**
 * The conflict policy every status writer shares (the Pipeline's and the PromotionAlert's):
 * a pure change applied to the stored object with its resourceVersion as precondition; on a 409
 * the object is read again and the change re-applied to what is stored now, up to a bounded
 * number of attempts with jittered pauses. A change that leaves the status as stored is never
 * written. The writers keep their own ports and types; this holds only the loop.
 */
import type { Scheduler } from '../clock.js';
import { jsonEqual } from '../json/json-equal.js';

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

/** What a writer needs besides its port. */
export interface ConditionalWriterOptions {
  scheduler: Pick<Scheduler, 'setTimer'>;
  random?: () => number;
  policy?: ConflictPolicy;
  /** Called once per attempt's result (metrics). */
  onAttempt?: (result: WriteAttempt) => void;
  /**
   * While it returns an error, a change that would write rejects with it instead (nothing is
   * put); changes that keep the status as stored still resolve. See StatusWritesHeld.
   */
  held?: () => Error | undefined | Promise<Error | undefined>;
}

/** An object with a status subresource, as the loop needs it. */
export interface StatusObject<S> {
  metadata: { namespace: string; name: string; resourceVersion?: string };
  status?: S;
}

/** The outcome of a conditional write; `object` is the stored object after (or as seen). */
export type ConditionalWrite<O, V> =
  | { outcome: 'Written'; object: O; verdict: V }
  | { outcome: 'Kept'; object: O; verdict: V }
  | { outcome: 'Gone' }
  | { outcome: 'Contended'; attempts: number };

/** The I/O of one kind: a fresh read, and one conditional PUT of the status. */
export interface ConditionalPort<O, S> {
  read(ref: { namespace: string; name: string }): Promise<O | undefined>;
  /** PUT `object` with `status`; `conflict` on a 409. Only the kind's writer calls its API. */
  replace(object: O, status: S): Promise<{ conflict: true } | { conflict: false; value: O }>;
  /** Names the kind in the error thrown for an object without resourceVersion. */
  kind: string;
}

/**
 * Applies `change` to `object` (as last seen) and to every fresh read after a 409. Rejects only
 * on API errors other than 409 and 404, and with the `held` error while writes are held.
 */
export async function writeConditionally<O extends StatusObject<S>, S, V>(
  port: ConditionalPort<O, S>,
  options: ConditionalWriterOptions,
  object: O,
  change: (stored: O) => { write: S; verdict: V } | { keep: V },
): Promise<ConditionalWrite<O, V>> {
  const policy = options.policy ?? CONFLICT_POLICY;
  const kept = (stored: O, verdict: V): ConditionalWrite<O, V> => {
    options.onAttempt?.('unchanged');
    return { outcome: 'Kept', object: stored, verdict };
  };
  let stored = object;
  for (let attempt = 1; ; attempt++) {
    const verdict = change(stored);
    if ('keep' in verdict) return kept(stored, verdict.keep);
    if (jsonEqual(verdict.write, stored.status ?? {})) return kept(stored, verdict.verdict);
    const held = await options.held?.();
    if (held !== undefined) throw held;
    const written = await put(port, stored, verdict.write);
    if (written === 'Gone') return { outcome: 'Gone' };
    if (written !== 'Conflict') {
      options.onAttempt?.('written');
      return { outcome: 'Written', object: written, verdict: verdict.verdict };
    }
    options.onAttempt?.('conflict');
    if (attempt >= policy.maxAttempts) {
      options.onAttempt?.('contended');
      return { outcome: 'Contended', attempts: attempt };
    }
    await pause(options, policy, attempt);
    const fresh = await port.read(object.metadata);
    if (fresh === undefined) return { outcome: 'Gone' };
    stored = fresh;
  }
}

/** One conditional PUT; a thrown error is Gone when a fresh GET finds no object. */
async function put<O extends StatusObject<S>, S>(
  port: ConditionalPort<O, S>,
  stored: O,
  status: S,
): Promise<O | 'Conflict' | 'Gone'> {
  requireVersion(port.kind, stored);
  try {
    const result = await port.replace(stored, status);
    return result.conflict ? 'Conflict' : result.value;
  } catch (err) {
    if (await isGone(port, stored)) return 'Gone';
    throw err;
  }
}

async function isGone<O extends StatusObject<S>, S>(
  port: ConditionalPort<O, S>,
  object: O,
): Promise<boolean> {
  try {
    return (await port.read(object.metadata)) === undefined;
  } catch {
    return false;
  }
}

function pause(
  options: ConditionalWriterOptions,
  policy: ConflictPolicy,
  attempt: number,
): Promise<void> {
  if (attempt < 2) return Promise.resolve();
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 2));
  const ms = Math.round((options.random ?? Math.random)() * cap);
  return new Promise((resolve) => options.scheduler.setTimer(ms, resolve));
}

/**
 * A write without a resourceVersion would be unconditional in Kubernetes and could overwrite
 * another replica's record, so every status write insists on one.
 */
export function requireVersion(kind: string, object: StatusObject<unknown>): string {
  const rv = object.metadata.resourceVersion;
  if (rv === undefined || rv === '') {
    throw new TypeError(
      `${kind} ${object.metadata.namespace}/${object.metadata.name} has no resourceVersion; status writes need one as precondition`,
    );
  }
  return rv;
}
