/**
 * The windows a Pipeline declares, compiled for the evaluator (EvaluationInput.windows). A
 * Pipeline is evaluated at every check, so each distinct list is compiled once and kept (a
 * bounded cache keyed by the list's text): its schedule's memory of past answers is kept too.
 */
import type {
  CompiledWindows,
  PromotionWindow,
  WindowLevel,
  WindowsInput,
} from './promotion-window.js';
import type { PipelineSpec, PromotionWindowSpec } from '../pipeline/pipeline-resource.js';
import { clip } from '../text/text.js';
import { compileWindow } from './compile.js';

/** Distinct window lists kept compiled; the oldest goes first when full. */
const CACHE_SIZE = 1_024;
const cache = new Map<string, CompiledWindows>();

/**
 * The spec's pipeline-wide and per-environment windows, compiled; undefined when it declares
 * none (the evaluator then sees no window input at all, as before windows existed).
 */
export function specWindows(
  spec: PipelineSpec,
): Pick<WindowsInput, 'pipeline' | 'environments'> | undefined {
  const environments: Record<string, CompiledWindows> = {};
  spec.environments.forEach((env, i) => {
    const list = env.promotion?.windows;
    if (list !== undefined && list.length > 0)
      environments[env.name] = compiled(
        list,
        'environment',
        `spec.environments[${i}].promotion.windows`,
      );
  });
  const list = spec.promotion?.windows;
  const pipeline =
    list !== undefined && list.length > 0
      ? compiled(list, 'pipeline', 'spec.promotion.windows')
      : undefined;
  if (pipeline === undefined && Object.keys(environments).length === 0) return undefined;
  return { ...(pipeline === undefined ? {} : { pipeline }), environments };
}

/**
 * One list compiled, the first problem named with its place: `spec.promotion.windows[1]
 * ("freeze"): rrule: RRULE needs FREQ`.
 */
export function compileWindows(
  list: readonly PromotionWindowSpec[],
  level: WindowLevel,
  where: string,
): CompiledWindows {
  const windows: PromotionWindow[] = [];
  for (const [i, spec] of list.entries()) {
    const result = compileWindow(spec, level);
    if (!result.ok) {
      const name = typeof spec.name === 'string' ? ` ("${clip(spec.name, 63)}")` : '';
      return { ok: false, problem: clip(`${where}[${i}]${name}: ${result.problem}`, 400) };
    }
    windows.push(result.value);
  }
  return { ok: true, windows };
}

function compiled(
  list: readonly PromotionWindowSpec[],
  level: WindowLevel,
  where: string,
): CompiledWindows {
  const key = `${where}\n${JSON.stringify(list)}`;
  const known = cache.get(key);
  if (known !== undefined) return known;
  const result = compileWindows(list, level, where);
  if (cache.size >= CACHE_SIZE) {
    const oldest = cache.keys().next();
    if (oldest.done !== true) cache.delete(oldest.value);
  }
  cache.set(key, result);
  return result;
}
