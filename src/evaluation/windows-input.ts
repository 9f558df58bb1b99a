/**
 * EvaluationInput.windows for one Pipeline: the operator's windows (compiled at config load)
 * and the Pipeline's own, compiled once per distinct list (src/windows/spec-windows.ts).
 */
import type { EvaluationInput } from '../evaluate/decisions.js';
import type { FleetWindow } from '../windows/promotion-window.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';
import { specWindows } from '../windows/spec-windows.js';

/** The windows input, or nothing at all when neither the operator nor the Pipeline has windows. */
export function windowsInputOf(
  pipeline: Pipeline,
  fleet: readonly FleetWindow[] | undefined,
): Pick<EvaluationInput, 'windows'> {
  const own = specWindows(pipeline.spec);
  const operator = fleet !== undefined && fleet.length > 0 ? fleet : undefined;
  if (own === undefined && operator === undefined) return {};
  return { windows: { ...own, ...(operator === undefined ? {} : { fleet: operator }) } };
}
