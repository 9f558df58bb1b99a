/**
 * The operator's promotion windows (config `promotion.windows`), compiled at load: a rule the
 * schema cannot check (a bad RRULE, an unknown time zone) is a problem naming its field, so the
 * gateway exits 2 at start instead of holding or promoting on a rule it cannot follow.
 */
import type { FleetWindow } from '../windows/promotion-window.js';
import type { PromotionWindowSpec } from '../pipeline/pipeline-resource.js';
import { compileWindow } from '../windows/compile.js';
import { pointerSegment, problem } from './schema.js';

/** Each window compiled; problems are pushed onto `problems`, one line each. */
export function buildWindows(
  inputs: readonly (PromotionWindowSpec & { environments: string[] })[],
  problems: string[],
): FleetWindow[] {
  const windows: FleetWindow[] = [];
  for (const [i, input] of inputs.entries()) {
    const { environments, ...spec } = input;
    const compiled = compileWindow(spec, 'fleet');
    if (!compiled.ok) {
      // compileWindow's problems start with the field: "rrule: RRULE needs FREQ".
      const [field = '', ...rest] = compiled.problem.split(': ');
      const known = ['name', 'type', 'timeZone', 'duration', 'rrule', 'cron'].includes(field);
      problems.push(
        known
          ? problem(`/promotion/windows/${i}/${pointerSegment(field)}`, rest.join(': '))
          : problem(`/promotion/windows/${i}`, compiled.problem),
      );
      continue;
    }
    windows.push({ ...compiled.value, environments: [...environments] });
  }
  return windows;
}
