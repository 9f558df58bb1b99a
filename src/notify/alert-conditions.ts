/**
 * The Ready condition of a PromotionAlert: what its deliveries come to, in the words Flux's
 * Alerts use (True/Succeeded; False with the reason). Pure.
 */
import type { Condition } from '../pipeline/pipeline-resource.js';
import { rfc3339 } from '../pipeline/time.js';
import { MAX_STREAMS, type AlertStatus } from './alert-resource.js';

/** Ready after a round: too many streams, then Gone (410), then a failing receiver, else Succeeded. */
export function readyCondition(
  alert: ConditionedAlert,
  round: {
    gone?: string | undefined;
    failing?: string | undefined;
    backlog: number;
    overflow?: number | undefined;
  },
  now: number,
): Condition {
  const { gone, failing, backlog, overflow } = round;
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
