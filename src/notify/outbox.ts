/**
 * The outbox of one stream (alert, pipeline, environment), pure: which of the facts a Pipeline's
 * status tells are still to be delivered, in what order, which a newer revision superseded,
 * which are past the horizon, and when the head may be tried again. Its state is a cursor and
 * the ids done since, stored in the PromotionAlert's status (docs/notifications.md, "Delivery"),
 * so the facts themselves never need storing: they are derived again from the Pipeline.
 */
import { compareFacts, type NotificationFact } from './facts.js';

/**
 * How late a fact may be recorded after a later one was delivered (a replica's clock, a write
 * that waited): within it a late fact is still delivered (after the later one), beyond it never.
 */
export const LATE_WINDOW_MS = 5 * 60_000;

/** The delivery state of one stream, as stored in status.streams[]. */
export interface StreamState {
  /** `namespace/name` of the Pipeline. */
  pipeline: string;
  /** The environment ('' for the Pipeline-wide EventsMissing). */
  environment: string;
  /** 'train' for a PromotionTrain's stream (`pipeline` names the train); absent for a Pipeline's. */
  kind?: 'train';
  /** Facts at or before `cursor - LATE_WINDOW_MS` (ms) are done; later ones are done if in `done`. */
  cursor: number;
  /** Facts done (delivered, superseded, dropped) later than `cursor - LATE_WINDOW_MS`. */
  done: { id: string; at: number }[];
  /** The head being tried: its id, attempts so far, first attempt and next allowed (ms). */
  head?: { id: string; attempts: number; firstAttempt: number; next: number; last?: string };
}

/** A fact with its event id for this alert. */
export interface AddressedFact {
  id: string;
  fact: NotificationFact;
}

/** What a look at one stream decides. */
export interface StreamPlan {
  /** Undelivered facts a later fact of a newer revision overtook: done, never sent. */
  superseded: AddressedFact[];
  /** Undelivered facts older than the horizon: done, never sent. */
  dropped: AddressedFact[];
  /** The next fact to deliver, in order; `dueAt` is when (<= now: now). */
  head?: AddressedFact;
  dueAt?: number;
  /** Facts still to deliver, in order (head first). */
  pending: AddressedFact[];
  /** Facts still to deliver (head included) and the time of the oldest. */
  backlog: number;
  oldest?: number;
}

/** The limits a plan keeps: facts before `floor` are never sent (the alert's start). */
export interface PlanLimits {
  floor: number;
  now: number;
  horizonMs: number;
}

/** The plan of a stream whose facts (any order) are `facts`, given its state. */
export function planStream(
  facts: readonly AddressedFact[],
  state: StreamState | undefined,
  limits: PlanLimits,
): StreamPlan {
  const sorted = [...facts].sort((a, b) => compareFacts(a.fact, b.fact));
  const firstSeen = firstSeenByRevision(sorted);
  const pending = sorted.filter((f) => !isDone(f, state, limits.floor));
  const superseded = pending.filter((f) => overtaken(f, sorted, firstSeen));
  const live = pending.filter((f) => !superseded.includes(f));
  const dropped = live.filter((f) => f.fact.at < limits.now - limits.horizonMs);
  const left = live.filter((f) => !dropped.includes(f));
  const head = left[0];
  const plan: StreamPlan = { superseded, dropped, pending: left, backlog: left.length };
  if (head === undefined) return plan;
  const retrying = state?.head?.id === head.id ? state.head.next : limits.now;
  return {
    ...plan,
    head,
    dueAt: Math.min(retrying, limits.now + limits.horizonMs),
    oldest: head.fact.at,
  };
}

/** Whether `fact` is done in `state` (or before the alert's floor). */
export function isDone(
  fact: AddressedFact,
  state: StreamState | undefined,
  floor: number,
): boolean {
  // Strictly before: the alert's creation time has whole seconds, a fact of that second counts.
  if (fact.fact.at < floor) return true;
  if (state === undefined) return false;
  if (fact.fact.at <= state.cursor - LATE_WINDOW_MS) return true;
  return state.done.some((d) => d.id === fact.id);
}

/**
 * The state after `finished` (delivered, superseded or dropped) were done and with `head` the
 * one now being retried (undefined: none). The cursor never goes back and never passes a fact
 * still pending, so a head retried for hours cannot fall behind the late window.
 */
export function stateAfter(args: {
  stream: Pick<StreamState, 'pipeline' | 'environment' | 'kind'>;
  previous: StreamState | undefined;
  finished: readonly AddressedFact[];
  pending: readonly AddressedFact[];
  head?: StreamState['head'];
  floor: number;
}): StreamState {
  const { previous, finished, pending } = args;
  const done = [...(previous?.done ?? []), ...finished.map((f) => ({ id: f.id, at: f.fact.at }))];
  const latestDone = Math.max(args.floor, previous?.cursor ?? args.floor, ...done.map((d) => d.at));
  const earliestPending = Math.min(...pending.map((f) => f.fact.at));
  const cursor = Math.max(
    previous?.cursor ?? args.floor,
    Math.min(latestDone, earliestPending - 1),
  );
  const kept = unique(done).filter((d) => d.at > cursor - LATE_WINDOW_MS);
  return {
    pipeline: args.stream.pipeline,
    environment: args.stream.environment,
    ...(args.stream.kind === undefined ? {} : { kind: args.stream.kind }),
    cursor,
    done: kept,
    ...(args.head === undefined ? {} : { head: args.head }),
  };
}

/** The backoff before attempt `attempts + 1`: exponential, full jitter, never below Retry-After. */
export function nextAttemptAt(args: {
  now: number;
  attempts: number;
  initialMs: number;
  maxMs: number;
  retryAfterMs?: number;
  random: () => number;
}): number {
  const ceiling = Math.min(args.maxMs, args.initialMs * 2 ** Math.max(0, args.attempts - 1));
  // Half fixed, half random: spreads receivers' retries without ever retrying at once.
  const wait = ceiling / 2 + (ceiling / 2) * args.random();
  return args.now + Math.max(wait, args.retryAfterMs ?? 0);
}

/** Whether an undelivered fact was overtaken: a later fact of a revision first seen later. */
function overtaken(
  fact: AddressedFact,
  all: readonly AddressedFact[],
  firstSeen: ReadonlyMap<string, number>,
): boolean {
  const mine = firstSeen.get(fact.fact.revision) ?? fact.fact.at;
  return all.some(
    (other) =>
      other.fact.revision !== fact.fact.revision &&
      other.fact.revision !== '' &&
      other.fact.at > fact.fact.at &&
      (firstSeen.get(other.fact.revision) ?? other.fact.at) > mine,
  );
}

function firstSeenByRevision(facts: readonly AddressedFact[]): Map<string, number> {
  const first = new Map<string, number>();
  for (const { fact } of facts) {
    const seen = first.get(fact.revision);
    if (seen === undefined || fact.at < seen) first.set(fact.revision, fact.at);
  }
  return first;
}

function unique(done: readonly { id: string; at: number }[]): { id: string; at: number }[] {
  const seen = new Set<string>();
  return done.filter((d) => (seen.has(d.id) ? false : (seen.add(d.id), true)));
}
