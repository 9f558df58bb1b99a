/**
 * One alert's round, pure: from the facts its Pipelines tell and its stored status, which
 * events are due now (one per stream, in order), and, once they were tried, the status to
 * store: stream cursors, counters, the latest outcomes, backlog and the Ready condition.
 * The notifier (src/notify/notifier.ts) does the I/O around it.
 */
import { rfc3339 } from '../time/kube-time.js';
import {
  MAX_RECENT,
  MAX_STREAMS,
  type AlertCounters,
  type AlertStatus,
  type PromotionAlert,
  type RecentDelivery,
} from './alert-resource.js';
import { readyCondition, type Blocked } from './alert-conditions.js';
import { readStream } from './stream-record.js';
import { eventId, type NotificationFact } from './facts.js';
import {
  nextAttemptAt,
  planStream,
  stateAfter,
  type AddressedFact,
  type StreamPlan,
  type StreamState,
} from './outbox.js';

/** How deliveries are retried (config `notifications.retry`). */
export interface RetryPolicy {
  initialMs: number;
  maxMs: number;
  horizonMs: number;
}

/** One stream's look: its key, stored state and plan. */
export interface StreamLook {
  pipeline: string;
  environment: string;
  /** 'train' for a PromotionTrain's stream (`pipeline` names the train). */
  kind?: 'train';
  state: StreamState | undefined;
  plan: StreamPlan;
}

/** An alert's round before any I/O: every stream's look and the events due now. */
export interface AlertRound {
  streams: StreamLook[];
  due: AddressedFact[];
  /** The earliest time a head not due now may be tried (ms), for the next wake-up. */
  wakeAt?: number;
  /** Streams beyond MAX_STREAMS, not looked at this round. */
  overflow?: number;
}

/** What came of one attempt. Gone: 410, the receiver asks never to be called again. */
export type AttemptResult =
  | { kind: 'Delivered'; detail: string }
  | { kind: 'Failed'; detail: string; retryAfterMs?: number }
  | { kind: 'Gone'; detail: string };

/** When the alert began: facts before are not its business. */
export function alertFloor(alert: PromotionAlert): number {
  const created = alert.metadata.creationTimestamp;
  const at = typeof created === 'string' ? Date.parse(created) : NaN;
  return Number.isFinite(at) ? at : 0;
}

/** The round of `alert` over `facts` (already selected and filtered by type) at `now`. */
export function planAlert(
  alert: PromotionAlert,
  facts: readonly NotificationFact[],
  now: number,
  retry: RetryPolicy,
): AlertRound {
  const uid = alert.metadata.uid ?? `${alert.metadata.namespace}/${alert.metadata.name}`;
  const byStream = new Map<string, AddressedFact[]>();
  for (const fact of facts) {
    const { namespace, name } = fact.pipeline;
    const key = streamKey(`${namespace}/${name}`, fact.environment, fact.train && 'train');
    const list = byStream.get(key) ?? [];
    list.push({ id: eventId(uid, fact), fact });
    byStream.set(key, list);
  }
  const stored = new Map<string, StreamState>();
  for (const s of alert.status?.streams ?? []) {
    const state = readStream(s);
    if (state !== undefined)
      stored.set(streamKey(state.pipeline, state.environment, state.kind), state);
  }
  const limits = { floor: alertFloor(alert), now, horizonMs: retry.horizonMs };
  const streams: StreamLook[] = [];
  const due: AddressedFact[] = [];
  let wakeAt: number | undefined;
  // Streams with a stored cursor first, then new ones in name order, up to the status's bound;
  // the others wait (nothing of theirs is lost: their facts stay in the Pipelines' status).
  const fresh = [...byStream.keys()].filter((k) => !stored.has(k)).sort();
  const keys = [...stored.keys(), ...fresh];
  const planned = keys.slice(0, MAX_STREAMS);
  for (const key of planned) {
    const state = stored.get(key);
    const plan = planStream(byStream.get(key) ?? [], state, limits);
    const [pipeline = '', environment = '', kind] = JSON.parse(key) as string[];
    streams.push({ pipeline, environment, ...(kind === 'train' ? { kind } : {}), state, plan });
    if (plan.head === undefined || plan.dueAt === undefined) continue;
    if (plan.dueAt <= now) due.push(plan.head);
    else wakeAt = Math.min(wakeAt ?? Infinity, plan.dueAt);
  }
  const overflow = keys.length - planned.length;
  return {
    streams,
    due,
    ...(wakeAt === undefined ? {} : { wakeAt }),
    ...(overflow > 0 ? { overflow } : {}),
  };
}

/** What one stream's round adds to the alert's status. */
interface StreamOutcome {
  state: StreamState;
  pending: AddressedFact[];
  recent: RecentDelivery[];
  /** The receiver's answer while this stream's head keeps failing. */
  failing?: string;
}

/** The inputs of statusAfter. */
export interface StatusAfterArgs {
  alert: PromotionAlert;
  round: AlertRound;
  results: ReadonlyMap<string, AttemptResult>;
  /** Why this round could make no delivery at all (read before any attempt), if so. */
  blocked?: Blocked | undefined;
  now: number;
  retry: RetryPolicy;
  random: () => number;
}

/** The status after `round` with `results` (by event id) at `now`; see the module comment. */
export function statusAfter(args: StatusAfterArgs): AlertStatus {
  const { alert, round, results, now } = args;
  const counters: Required<AlertCounters> = {
    delivered: 0,
    failed: 0,
    superseded: 0,
    dropped: 0,
    ...alert.status?.counters,
  };
  const recent: RecentDelivery[] = [];
  const streams: StreamState[] = [];
  let backlog = 0;
  let oldest: number | undefined;
  let failing: string | undefined;
  for (const look of round.streams) {
    const result = look.plan.head === undefined ? undefined : results.get(look.plan.head.id);
    const out = streamAfter(look, result, args);
    for (const entry of out.recent) count(counters, String(entry.result));
    recent.push(...out.recent);
    failing ??= out.failing;
    backlog += out.pending.length;
    const first = out.pending[0];
    if (first !== undefined) oldest = Math.min(oldest ?? Infinity, first.fact.at);
    if (!prunable(out.state, out.pending.length, now, args.retry.horizonMs))
      streams.push(out.state);
  }
  const gone = [...results.values()].find((r) => r.kind === 'Gone');
  const { oldestUndelivered: _old, ...stored } = alert.status ?? {};
  return {
    ...stored,
    ...(alert.metadata.generation === undefined
      ? {}
      : { observedGeneration: alert.metadata.generation }),
    counters,
    backlog,
    ...(oldest === undefined ? {} : { oldestUndelivered: new Date(oldest).toISOString() }),
    streams: streams.sort(byKey).slice(0, MAX_STREAMS),
    recent: [...recent.reverse(), ...(alert.status?.recent ?? [])].slice(0, MAX_RECENT),
    ...lastDeliveryOf(recent, alert.status),
    conditions: [
      readyCondition(
        alert,
        {
          gone: gone?.detail,
          failing,
          blocked: args.blocked,
          attempted: results.size > 0,
          backlog,
          overflow: round.overflow,
        },
        now,
      ),
    ],
  };
}

function count(counters: Required<AlertCounters>, result: string): void {
  if (result === 'Delivered') counters.delivered += 1;
  else if (result === 'Failed') counters.failed += 1;
  else if (result === 'Superseded') counters.superseded += 1;
  else if (result === 'Dropped') counters.dropped += 1;
}

/** One stream after its round: superseded and dropped facts done, the head delivered or not. */
function streamAfter(
  look: StreamLook,
  result: AttemptResult | undefined,
  args: StatusAfterArgs,
): StreamOutcome {
  const { plan, state } = look;
  const { now } = args;
  const head = plan.head;
  const finished = [...plan.superseded, ...plan.dropped];
  const recent = [
    ...plan.superseded.map((f) => outcome(f, 'Superseded', now)),
    ...plan.dropped.map((f) => outcome(f, 'Dropped', now)),
  ];
  let headState = head !== undefined && state?.head?.id === head.id ? state.head : undefined;
  let pending = plan.pending;
  let failing = headState?.last;
  if (head !== undefined && result?.kind === 'Delivered') {
    finished.push(head);
    pending = pending.slice(1);
    headState = undefined;
    failing = undefined;
    recent.push(outcome(head, 'Delivered', now, result.detail));
  } else if (head !== undefined && result?.kind === 'Failed') {
    const attempts = (headState?.attempts ?? 0) + 1;
    const next = nextAttemptAt({
      now,
      attempts,
      initialMs: args.retry.initialMs,
      maxMs: args.retry.maxMs,
      random: args.random,
      ...(result.retryAfterMs === undefined ? {} : { retryAfterMs: result.retryAfterMs }),
    });
    const firstAttempt = headState?.firstAttempt ?? now;
    headState = { id: head.id, attempts, firstAttempt, next, last: result.detail };
    failing = result.detail;
    recent.push(outcome(head, 'Failed', now, result.detail));
  }
  const next = stateAfter({
    stream: look,
    previous: state,
    finished,
    pending,
    ...(headState === undefined ? {} : { head: headState }),
    floor: alertFloor(args.alert),
  });
  return { state: next, pending, recent, ...(failing === undefined ? {} : { failing }) };
}

function outcome(f: AddressedFact, result: string, now: number, detail?: string): RecentDelivery {
  const { fact } = f;
  return {
    id: f.id,
    type: fact.type,
    pipeline: `${fact.pipeline.namespace}/${fact.pipeline.name}`,
    environment: fact.environment,
    revision: fact.revision,
    result,
    time: rfc3339(now),
    ...(detail === undefined ? {} : { detail }),
  };
}

function lastDeliveryOf(
  recent: readonly RecentDelivery[],
  stored: AlertStatus | undefined,
): Pick<AlertStatus, 'lastDelivery'> {
  const tried = [...recent]
    .reverse()
    .find((r) => r.result === 'Delivered' || r.result === 'Failed');
  if (tried === undefined)
    return stored?.lastDelivery === undefined ? {} : { lastDelivery: stored.lastDelivery };
  return {
    lastDelivery: {
      id: String(tried.id),
      type: String(tried.type),
      time: String(tried.time),
      result: String(tried.result),
    },
  };
}

/** A stream with nothing pending, no head and a cursor past the horizon tells nothing more. */
function prunable(state: StreamState, pending: number, now: number, horizonMs: number): boolean {
  return pending === 0 && state.head === undefined && state.cursor <= now - horizonMs;
}

/** A stream's key: a train's streams apart from a Pipeline's of the same name. */
function streamKey(pipeline: string, environment: string, kind?: 'train'): string {
  return JSON.stringify(
    kind === undefined ? [pipeline, environment] : [pipeline, environment, kind],
  );
}

function byKey(a: StreamState, b: StreamState): number {
  const key = (s: StreamState) => streamKey(s.pipeline, s.environment, s.kind);
  return key(a) < key(b) ? -1 : 1;
}
