/**
 * The soak gate: an environment takes a revision only once the environment before it has run
 * that revision healthy, on every target and without a break, for the environment's
 * `promotion.soak.duration` (docs/policy.md, "Soak time"). Since when it has is an input
 * (`EvaluationInput.soak`, see healthy-since.ts), so the gate is pure: it compares that time
 * with `now` and says how long is left, asking to be looked at again when the soak ends.
 */
import type { PipelineEnvironment, PipelineSpec, SoakSpec } from '../pipeline/pipeline-resource.js';
import { display } from '../text/text.js';
import { parseTimestamp, rfc3339, rfc3339Millis } from '../time/kube-time.js';
import type { EnvironmentDecision, EvaluationInput } from './decisions.js';
import { formatDuration, parseDuration } from '../time/duration.js';
import type { GateArgs } from './gate-args.js';
import { Reasons } from './reasons.js';

/** The environment's soak: its own, else the Pipeline's; undefined when it has none. */
export function soakOf(spec: PipelineSpec, env: PipelineEnvironment): SoakSpec | undefined {
  return env.promotion?.soak ?? spec.promotion?.soak;
}

/**
 * The environments some soak waits on (the one before each environment with a soak longer
 * than zero): those whose `healthySince` the status keeps. The first environment has no soak.
 */
export function soakedUpstreams(spec: PipelineSpec): Set<string> {
  const names = new Set<string>();
  spec.environments.forEach((env, i) => {
    const soak = soakOf(spec, env);
    const upstream = spec.environments[i - 1];
    if (i > 0 && upstream !== undefined && soak !== undefined && parseDuration(soak.duration) !== 0)
      names.add(upstream.name);
  });
  return names;
}

/**
 * Where an environment's soak stands for `revision` at `input.now`, as the gate decides on it:
 * undefined when it has no soak (or `0s`); `end` absent when the soak is longer than counted.
 */
export interface SoakClock {
  /** The soak as the spec writes it. */
  duration: string;
  /** The environment before it, whose healthy time counts. */
  upstream: string;
  /** Since when (ms) the upstream has run `revision` healthy, when that is known. */
  since?: number;
  /** When (ms) the soak ends: counted from `since`, or from `now` when that is not known. */
  end?: number;
}

/** The soak clock of `env` (at `index` in the spec) for `revision`; see SoakClock. */
export function soakClock(
  input: EvaluationInput,
  env: PipelineEnvironment,
  index: number,
  revision: string,
): SoakClock | undefined {
  const soak = soakOf(input.spec, env);
  if (soak === undefined) return undefined;
  const ms = parseDuration(soak.duration);
  if (ms === 0) return undefined;
  const upstream = input.spec.environments[index - 1]?.name ?? '';
  const base = { duration: soak.duration, upstream };
  if (ms === undefined) return base;
  const stored = input.soak?.[upstream];
  const since = stored?.revision === revision ? parseTimestamp(stored.time) : undefined;
  // Not known (no reads kept, or a newer record says otherwise): the soak starts now at best.
  const end = (since ?? input.now) + ms;
  return since === undefined ? { ...base, end } : { ...base, since, end };
}

/** The time left (ms) until `end`, rounded up to the second, as messages and views say it. */
export function soakLeft(end: number, now: number): number {
  return Math.ceil((end - now) / 1_000) * 1_000;
}

/**
 * Holds the environment while its upstream has not run `revision` healthy for the soak time;
 * a soak in `mode: Shadow` holds nothing (shadow-gates.ts records what it would hold).
 */
export function soakGate(args: GateArgs): EnvironmentDecision | undefined {
  return soakOf(args.input.spec, args.env)?.mode === 'Shadow' ? undefined : soakHold(args);
}

/** What the soak would decide for `revision`, whatever its mode; undefined lets it through. */
export function soakHold(args: GateArgs): EnvironmentDecision | undefined {
  const { input, env, index, revision } = args;
  const clock = soakClock(input, env, index, revision);
  if (clock === undefined) return undefined;
  const base = { environment: env.name, outcome: 'Waiting' as const, revision };
  const wanted = display(clock.duration, 32);
  if (clock.end === undefined) {
    return {
      ...base,
      reason: Reasons.SoakInvalid,
      message: `${env.name}'s soak of ${wanted} is longer than the 8760h the gateway counts; ${env.name} waits until it is changed`,
    };
  }
  const { upstream, since: known, end } = clock;
  if (input.now >= end) return undefined;
  const start = known ?? input.now;
  const rev = display(revision);
  const elapsed = Math.floor(Math.max(0, input.now - start) / 1_000) * 1_000;
  const left = soakLeft(end, input.now);
  const until = rfc3339(Math.ceil(end / 1_000) * 1_000);
  return {
    ...base,
    reason: Reasons.Soaking,
    message: `${upstream} has run ${rev} healthy for ${formatDuration(elapsed)} of ${wanted}; ${env.name} waits ${formatDuration(left)} more`,
    statusMessage:
      known === undefined
        ? `${upstream} is healthy at ${rev}; ${env.name} waits for it to run so for ${wanted}`
        : `${upstream} has run ${rev} healthy since ${rfc3339Millis(known)}; ${env.name} waits for ${wanted} of it, until ${until}`,
    retryAt: end,
  };
}
