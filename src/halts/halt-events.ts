/**
 * The Kubernetes Events that record a stop-the-line halt and its lift on the Pipeline, for
 * `kubectl describe` and anything that watches Events (a Flux Alert, an audit pipeline).
 */
import type { EventRecord } from '../kube/ports.js';
import { involvedObjectOf } from '../pipeline/involved-object.js';
import type { HaltRecord, Pipeline } from '../pipeline/pipeline-resource.js';
import { display } from '../text/text.js';

/** Event reasons, by what happened. */
export const HaltReasons = { recorded: 'PromotionsHalted', lifted: 'HaltLifted' } as const;

/** The Event for one halt recorded or lifted (`by` lifted it; the halt names who halted). */
export function haltEvent(
  pipeline: Pipeline,
  halt: HaltRecord,
  action: 'recorded' | 'lifted',
  by: string,
): EventRecord {
  const scope = halt.environment ?? 'every environment';
  const until = halt.expiresAt === undefined ? 'until lifted' : `until ${halt.expiresAt}`;
  const message =
    action === 'recorded'
      ? `${display(by)} halted promotions of ${scope} ${until}: ${display(halt.reason, 256)}`
      : `${display(by)} lifted the halt of ${scope} by ${display(halt.principal)}`;
  return {
    involvedObject: involvedObjectOf(pipeline),
    type: action === 'recorded' ? 'Warning' : 'Normal',
    reason: HaltReasons[action],
    message,
    annotations: {
      halt: halt.id,
      environment: halt.environment ?? '',
      principal: by,
      // A halt across Pipelines: the selector it was made with, on each Pipeline's Event.
      ...(halt.selector === undefined ? {} : { selector: halt.selector }),
    },
  };
}
