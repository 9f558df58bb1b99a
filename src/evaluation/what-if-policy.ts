/**
 * A proposed policy (shapes/what-if-policy.ts) made ready to evaluate: its fleet windows
 * compiled and its selectors parsed once (a rule that cannot be used is a problem naming its
 * place, so nothing is evaluated on half a policy), and a Pipeline seen under it. Pure.
 */
import type { Static } from 'typebox';
import {
  parseSelectorText,
  selectorMatches,
  type LabelSelector,
} from '../labels/label-selector.js';
import type { Pipeline, PipelineEnvironment } from '../pipeline/pipeline-resource.js';
import type { WhatIfPolicySchema, WhatIfPromotionSchema } from '../shapes/what-if-policy.js';
import { compileWindow } from '../windows/compile.js';
import type { FleetWindow } from '../windows/promotion-window.js';

/** The policy as the file or the request body declares it (checked by its schema first). */
export type WhatIfPolicyInput = Static<typeof WhatIfPolicySchema>;

/** The gate fields one rule sets. */
export type WhatIfPromotion = Static<typeof WhatIfPromotionSchema>;

/** One rule, ready to match. */
interface Rule {
  namespace?: string;
  name?: string;
  selector?: LabelSelector;
  environments: readonly string[];
  promotion: WhatIfPromotion;
}

/** A policy ready to evaluate. */
export interface WhatIfPolicy {
  /** Replaces the configuration's fleet windows; undefined: they stay. */
  readonly windows?: readonly FleetWindow[];
  readonly rules: readonly Rule[];
}

/** The policy compiled, or every problem found in it, one line each (`/windows/0/rrule: ...`). */
export type CompiledPolicy = { ok: true; policy: WhatIfPolicy } | { ok: false; problems: string[] };

/** Compiles `input`'s windows and selectors; what the schema cannot check is judged here. */
export function compileWhatIfPolicy(input: WhatIfPolicyInput): CompiledPolicy {
  const problems: string[] = [];
  const windows = input.windows?.flatMap((declared, i): FleetWindow[] => {
    const { environments = [], ...spec } = declared;
    const compiled = compileWindow(spec, 'fleet');
    if (!compiled.ok) problems.push(`/windows/${String(i)}: ${compiled.problem}`);
    return compiled.ok ? [{ ...compiled.value, environments: [...environments] }] : [];
  });
  const rules = (input.pipelines ?? []).map((rule, i): Rule => {
    const [namespace, name] = rule.name === undefined ? [] : rule.name.split('/');
    let selector: LabelSelector | undefined;
    if (rule.selector !== undefined) {
      const parsed = parseSelectorText(rule.selector);
      if (parsed.ok) selector = parsed.selector;
      else problems.push(`/pipelines/${String(i)}/selector: ${parsed.problem}`);
    }
    rule.promotion.windows?.forEach((w, j) => {
      const compiled = compileWindow(w, 'environment');
      if (!compiled.ok)
        problems.push(
          `/pipelines/${String(i)}/promotion/windows/${String(j)}: ${compiled.problem}`,
        );
    });
    return {
      ...(namespace === undefined ? {} : { namespace }),
      ...(name === undefined ? {} : { name }),
      ...(selector === undefined ? {} : { selector }),
      environments: rule.environments ?? [],
      promotion: rule.promotion,
    };
  });
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, policy: { ...(windows === undefined ? {} : { windows }), rules } };
}

/** Whether `rule` picks `pipeline`: its name and its selector, where given, both match. */
function picks(rule: Rule, pipeline: Pipeline): boolean {
  const { namespace, name, labels } = pipeline.metadata;
  if (rule.name !== undefined && (rule.namespace !== namespace || rule.name !== name)) return false;
  return rule.selector === undefined || selectorMatches(rule.selector, labels ?? {});
}

/**
 * `pipeline` as the policy would have it: each rule that picks it replaces, on the environments it
 * names (all but the source when it names none), the gate fields it gives. The same object when no
 * rule picks it, so an unchanged Pipeline costs nothing and evaluates exactly as it is.
 */
export function proposedPipeline(pipeline: Pipeline, policy: WhatIfPolicy): Pipeline {
  const rules = policy.rules.filter((rule) => picks(rule, pipeline));
  if (rules.length === 0) return pipeline;
  const environments = pipeline.spec.environments.map((env, index) =>
    index === 0 ? env : rules.reduce((e, rule) => withRule(e, rule), env),
  );
  return { ...pipeline, spec: { ...pipeline.spec, environments } };
}

function withRule(env: PipelineEnvironment, rule: Rule): PipelineEnvironment {
  if (rule.environments.length > 0 && !rule.environments.includes(env.name)) return env;
  const own = env.promotion ?? { strategy: {} };
  return { ...env, promotion: { ...own, ...rule.promotion } };
}
