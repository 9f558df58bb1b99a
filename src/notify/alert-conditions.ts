/**
 * The Ready condition of a PromotionAlert: what its deliveries come to, in the words Flux's
 * Alerts use (True/Succeeded; False with the reason). Pure.
 */
import type { Condition } from '../pipeline/pipeline-resource.js';
import { jsonEqual } from '../json/json-equal.js';
import { rfc3339 } from '../time/kube-time.js';
import { MAX_STREAMS, type AlertStatus } from './alert-resource.js';

/** Why no delivery can be made for an alert (its Secret, its address, its format). */
export interface Blocked {
  reason: string;
  message: string;
}

/** Reasons of Ready=False that a round without any attempt can neither confirm nor clear. */
const RECEIVER_REASONS = new Set(['TooManyStreams', 'Gone', 'DeliveryFailed', 'Succeeded']);

/**
 * Ready after a round: too many streams, then Gone (410), then what blocks every delivery, then a
 * failing receiver, else Succeeded. A round that attempted nothing while events wait keeps a
 * stored blocking reason (a missing Secret stays said until a round finds it readable): so Ready
 * never flaps between a blocker and "being delivered".
 */
export function readyCondition(
  alert: ConditionedAlert,
  round: {
    gone?: string | undefined;
    failing?: string | undefined;
    blocked?: Blocked | undefined;
    /** Whether the round attempted a delivery (a blocker is cleared only then). */
    attempted: boolean;
    backlog: number;
    overflow?: number | undefined;
  },
  now: number,
): Condition {
  const { gone, failing, backlog, overflow } = round;
  const stored = alert.status?.conditions?.find((c) => c.type === 'Ready');
  const stillBlocked =
    !round.attempted &&
    backlog > 0 &&
    stored?.status === 'False' &&
    !RECEIVER_REASONS.has(stored.reason) &&
    stored.observedGeneration === alert.metadata.generation
      ? { reason: stored.reason, message: stored.message }
      : undefined;
  const blocked = round.blocked ?? stillBlocked;
  const draft: Pick<Condition, 'status' | 'reason' | 'message'> =
    overflow !== undefined
      ? {
          status: 'False',
          reason: 'TooManyStreams',
          message: `The alert selects ${String(overflow)} more (pipeline, environment) streams than the ${String(MAX_STREAMS)} its status can follow; they wait: narrow spec.pipelines or spec.eventTypes, or split the alert`,
        }
      : gone !== undefined
        ? {
            status: 'False',
            reason: 'Gone',
            message: `The receiver answered ${gone}: deliveries stopped until the alert's spec changes`,
          }
        : blocked !== undefined
          ? { status: 'False', ...blocked }
          : failing !== undefined
            ? {
                status: 'False',
                reason: 'DeliveryFailed',
                message: `The receiver answered ${failing}; ${String(backlog)} event(s) wait`,
              }
            : {
                status: 'True',
                reason: 'Succeeded',
                message:
                  backlog === 0
                    ? 'Every event is delivered'
                    : `${String(backlog)} event(s) being delivered`,
              };
  return conditionOf(alert, draft, now);
}

/** The Ready condition from `draft`, its transition time kept while its status is unchanged. */
export function conditionOf(
  alert: ConditionedAlert,
  draft: Pick<Condition, 'status' | 'reason' | 'message'>,
  now: number,
): Condition {
  const stored = alert.status?.conditions?.find((c) => c.type === 'Ready');
  const lastTransitionTime =
    stored?.status === draft.status ? stored.lastTransitionTime : rfc3339(now);
  return {
    type: 'Ready',
    ...draft,
    lastTransitionTime,
    ...(alert.metadata.generation === undefined
      ? {}
      : { observedGeneration: alert.metadata.generation }),
  };
}

/** What a condition needs of an alert (checked or not). */
export interface ConditionedAlert {
  metadata: { generation?: number };
  status?: AlertStatus;
}

/** Whether a receiver answered 410 for `alert`: it stays stopped until its spec changes. */
export function isGone(alert: ConditionedAlert): boolean {
  const ready = alert.status?.conditions?.find((c) => c.type === 'Ready');
  return ready?.reason === 'Gone' && ready.observedGeneration === alert.metadata.generation;
}

/** Whether two statuses say the same, whenever their conditions last changed. */
export function sameStatus(a: AlertStatus | undefined, b: AlertStatus): boolean {
  const strip = (s: AlertStatus | undefined) => ({
    ...s,
    conditions: s?.conditions?.map(({ lastTransitionTime: _t, ...c }) => c),
  });
  return jsonEqual(strip(a), strip(b));
}
