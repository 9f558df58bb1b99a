/**
 * What a notification round tells besides the alert's status: the metrics, counted from what
 * the written status added to its counters (so the two always agree, at the horizon as
 * anywhere), the gauges from the status's backlog (after every round, also one that sent or
 * wrote nothing), and a log line per attempt.
 */
import type { GatewayLogger } from '../log.js';
import type { AttemptResult } from './alert-progress.js';
import type {
  AlertCounters,
  AlertStatus,
  PromotionAlert,
  UncheckedAlert,
} from './alert-resource.js';

/** The metric hooks a report calls (notify-metrics.ts). */
export interface ReportHooks {
  /** Counts each finished event, and each attempt, by result. */
  onResult?: ((alert: string, result: string) => void) | undefined;
  /** Sets an alert's backlog and its oldest event's time. */
  onBacklog?: ((alert: string, backlog: number, oldest: number | undefined) => void) | undefined;
}

/** `namespace/name` of an alert: its metrics label and log field. */
export function keyOf(alert: UncheckedAlert): string {
  return `${alert.metadata.namespace}/${alert.metadata.name}`;
}

/** The results the status counts, by the counter that counts them. */
const COUNTED: readonly (readonly [string, keyof AlertCounters])[] = [
  ['Delivered', 'delivered'],
  ['Failed', 'failed'],
  ['Superseded', 'superseded'],
  ['Dropped', 'dropped'],
];

/** Counts what `after` (written over `before`) added to the counters, and sets the gauges. */
export function reportWritten(
  hooks: ReportHooks,
  alert: PromotionAlert,
  before: AlertStatus | undefined,
  after: AlertStatus,
): void {
  const key = keyOf(alert);
  for (const [result, field] of COUNTED) {
    const added = (after.counters?.[field] ?? 0) - (before?.counters?.[field] ?? 0);
    for (let i = 0; i < added; i++) hooks.onResult?.(key, result);
  }
  const ready = (status: AlertStatus | undefined) =>
    status?.conditions?.find((c) => c.type === 'Ready')?.reason;
  if (ready(after) === 'Gone' && ready(before) !== 'Gone') hooks.onResult?.(key, 'Gone');
  reportBacklog(hooks, alert, after);
}

/** The gauges of `alert` from its status: its backlog and its oldest undelivered event. */
export function reportBacklog(
  hooks: ReportHooks,
  alert: PromotionAlert,
  status: AlertStatus | undefined,
): void {
  const oldest = Date.parse(status?.oldestUndelivered ?? '');
  hooks.onBacklog?.(
    keyOf(alert),
    status?.backlog ?? 0,
    Number.isFinite(oldest) ? oldest : undefined,
  );
}

/** One log line per attempt: debug when delivered, info when not. */
export function logResults(
  logger: GatewayLogger,
  alert: PromotionAlert,
  results: ReadonlyMap<string, AttemptResult>,
): void {
  const key = keyOf(alert);
  for (const [id, result] of results) {
    const fields = { alert: key, id, result: result.kind, detail: result.detail };
    if (result.kind === 'Delivered') logger.debug(fields, 'notification delivered');
    else logger.info(fields, 'notification not delivered');
  }
}
