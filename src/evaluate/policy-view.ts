/**
 * Every policy gate of each environment at once, as `GET /v1/pipelines/{namespace}/{name}` and
 * `promotion-gateway status` explain them (docs/policy.md, "Seeing the gates"): the halts in
 * force, the promotion windows, the soak and each external check's result, and which gates hold
 * a promotion now. The decision names only the first gate that holds; this shows them all.
 * Pure, computed from the evaluator's own input with the gates' own helpers, and each gate is
 * asked itself whether it holds: the view and the decision cannot disagree.
 */
import type { CheckSpec, HaltRecord, PipelineEnvironment } from '../pipeline/pipeline-resource.js';
import { display } from '../text/text.js';
import { rfc3339, rfc3339Millis } from '../time/kube-time.js';
import { checksGate, latest, standingOf } from './checks-gate.js';
import type { CheckState } from './decisions.js';
import type { EvaluationInput } from './decisions.js';
import { formatDuration } from '../time/duration.js';
import { haltEnd, haltsGate, haltsInForce } from './halts-gate.js';
import type { GateArgs, PolicyGate } from './gate-args.js';
import { windowView, type WindowView } from './policy-window.js';
import { soakClock, soakGate, soakLeft } from './soak.js';
import { alignTargets, summarise } from './target-states.js';
import { windowsGate } from './windows-gate.js';
import { driftViewOf, type DriftPolicyView } from './drift.js';
import { hasShadowGates, shadowHolds } from './shadow-gates.js';
import type { ShadowHold } from './decisions.js';

export type { WindowName, WindowView } from './policy-window.js';

/** A policy gate as the view names it. */
export type PolicyPart = 'halts' | 'window' | 'soak' | 'checks';

/** The gates by the view's names, in the order the evaluator asks them (POLICY_GATES). */
export const VIEWED_GATES: readonly (readonly [PolicyPart, PolicyGate])[] = [
  ['halts', haltsGate],
  ['window', windowsGate],
  ['soak', soakGate],
  ['checks', checksGate],
];

/** One environment's policy gates; a part is present only where the environment has that gate. */
export interface PolicyView {
  /** The revision the gates are asked about: the one upstream runs healthy, when it does. */
  revision?: string;
  /** With `revision`: the gates that, each asked alone, hold its promotion now, in asking order. */
  holding?: PolicyPart[];
  /** The stop-the-line halts in force for the environment, the longest-lasting first. */
  halts?: HaltView[];
  window?: WindowView;
  soak?: SoakView;
  /** The environment's checks in spec order. */
  checks?: CheckView[];
  /** Its drift policy when the spec sets one, and the drift while there is one (drift.ts). */
  drift?: DriftPolicyView;
  /** With `revision`: what its shadow gates would hold now (shadow-gates.ts); absent: nothing. */
  wouldHold?: ShadowHold[];
}

/** A halt in force, as status.halts records it. */
export interface HaltView {
  id: string;
  /** Absent: the halt holds every environment of the Pipeline. */
  environment?: string;
  principal: string;
  kind: string;
  reason: string;
  /** When it was recorded. */
  since: string;
  /** When it stops holding by itself; absent: until it is lifted. */
  until?: string;
  /** The label selector of a halt made across Pipelines. */
  selector?: string;
}

/** The soak of an environment: how long its upstream must run the revision healthy. */
export interface SoakView {
  /** As the spec writes it: `30m`. */
  duration: string;
  /** The environment whose healthy time counts. */
  upstream: string;
  /** With `revision`: since when the upstream has run it healthy, when known (ms precision). */
  healthySince?: string;
  /** With `healthySince`: when the soak ends (ms precision). */
  endsAt?: string;
  /** With `revision`: the time left when the view was computed, `18m`; `0s` once over. */
  left?: string;
  /** The duration is longer than the 8760h the gateway counts: it holds until changed. */
  invalid?: true;
}

/** One external check; the result is for `revision`, as the gate decides on it. */
export interface CheckView {
  name: string;
  kind: 'http' | 'commitStatus';
  /** With `revision`: Passed, Failed, Pending (or a pass being renewed) or Unknown. */
  result?: CheckState;
  /** With `revision`: the result in words as the decision's message gives it, secret-free. */
  detail?: string;
  /** When the result stops being current and is read again. */
  expiresAt?: string;
}

/**
 * The view of every environment that has a policy gate, by name; undefined when none has one
 * (so a Pipeline without these fields shows nothing new). The source environment is never
 * promoted, so it has none.
 */
export function policyViewsOf(
  input: EvaluationInput,
): Readonly<Record<string, PolicyView>> | undefined {
  const views: Record<string, PolicyView> = {};
  input.spec.environments.forEach((env, index) => {
    const view = index === 0 ? undefined : policyViewOf(input, index);
    if (view !== undefined) views[env.name] = view;
  });
  return Object.keys(views).length === 0 ? undefined : views;
}

/** The view of the environment at `index` (>= 1) of the spec; undefined when it has no gate. */
export function policyViewOf(input: EvaluationInput, index: number): PolicyView | undefined {
  const envs = input.spec.environments;
  const env = envs[index];
  const upstreamEnv = envs[index - 1];
  if (index < 1 || env === undefined || upstreamEnv === undefined) return undefined;
  // What needs no revision first: an environment without gates costs no more than this.
  const halts = haltsInForce(input.halts, env.name, input.now).map(haltView);
  const bare = { input, env, index, revision: '', upstream: [], ready: '' };
  const window = windowView(bare);
  const drift = driftViewOf({
    spec: input.spec,
    env,
    record: input.records[env.name],
    own: alignTargets(env, input.targets[env.name], false),
    stored: input.histories?.[env.name],
    now: input.now,
  });
  if (!anyGate(bare, halts, window) && drift === undefined) return undefined;
  const args = gateArgsOf(input, index, env, upstreamEnv);
  const known = args.revision === '' ? undefined : args.revision;
  const soak = soakView(args, known);
  const checks = checksView(args, known);
  return {
    ...(known === undefined ? {} : revisionParts(args, known)),
    ...(halts.length === 0 ? {} : { halts }),
    ...(window === undefined ? {} : { window }),
    ...(soak === undefined ? {} : { soak }),
    ...(checks === undefined ? {} : { checks }),
    ...(drift === undefined ? {} : { drift }),
  };
}

/** Whether the environment has a gate at all: a halt in force, a window (or a shadow one), a soak, checks. */
function anyGate(
  args: GateArgs,
  halts: readonly HaltView[],
  window: WindowView | undefined,
): boolean {
  if (halts.length > 0 || window !== undefined) return true;
  if (soakClock(args.input, args.env, args.index, '') !== undefined) return true;
  return (args.env.promotion?.checks?.length ?? 0) > 0 || hasShadowGates(args);
}

/** What is asked about `revision`: the gates that hold it, and what shadow gates would. */
function revisionParts(
  args: GateArgs,
  revision: string,
): Pick<PolicyView, 'revision' | 'holding' | 'wouldHold'> {
  const holding = VIEWED_GATES.filter(([, gate]) => gate(args) !== undefined).map(([p]) => p);
  const wouldHold = shadowHolds(args);
  return { revision, holding, ...(wouldHold.length === 0 ? {} : { wouldHold }) };
}

/**
 * What the gates see of the environment at `index`, as the evaluator gives it to them once its
 * upstream is ready; `revision` is '' while the upstream is not healthy at one revision.
 */
function gateArgsOf(
  input: EvaluationInput,
  index: number,
  env: PipelineEnvironment,
  upstreamEnv: PipelineEnvironment,
): GateArgs {
  const names = input.spec.environments.map((e) => e.name);
  const duplicate = names.indexOf(upstreamEnv.name) !== names.lastIndexOf(upstreamEnv.name);
  const upstream = alignTargets(upstreamEnv, input.targets[upstreamEnv.name], duplicate);
  const summary = summarise(upstream);
  const revision = summary.kind === 'Ready' ? summary.revision : '';
  return { input, env, index, revision, upstream, ready: '' };
}

function haltView(halt: HaltRecord): HaltView {
  const until = Number.isFinite(haltEnd(halt)) ? display(halt.expiresAt, 64) : undefined;
  return {
    id: display(halt.id, 64),
    ...(halt.environment === undefined ? {} : { environment: display(halt.environment, 63) }),
    principal: display(halt.principal),
    kind: halt.kind,
    reason: display(halt.reason, 256),
    since: display(halt.time, 64),
    ...(until === undefined ? {} : { until }),
    ...(halt.selector === undefined ? {} : { selector: display(halt.selector, 256) }),
  };
}

function soakView(args: GateArgs, revision: string | undefined): SoakView | undefined {
  const clock = soakClock(args.input, args.env, args.index, args.revision);
  if (clock === undefined) return undefined;
  const base: SoakView = { duration: display(clock.duration, 64), upstream: clock.upstream };
  if (clock.end === undefined) return { ...base, invalid: true };
  if (revision === undefined) return base;
  const { now } = args.input;
  const left = formatDuration(Math.max(0, soakLeft(clock.end, now)));
  if (clock.since === undefined) return { ...base, left };
  return {
    ...base,
    healthySince: rfc3339Millis(clock.since),
    endsAt: rfc3339Millis(clock.end),
    left,
  };
}

function checksView(args: GateArgs, revision: string | undefined): CheckView[] | undefined {
  const specs = args.env.promotion?.checks ?? [];
  if (specs.length === 0) return undefined;
  const { now } = args.input;
  const known = args.input.checks?.[args.env.name] ?? [];
  return specs.map((spec, index) => {
    const base = { name: display(spec.name, 63), kind: kindOf(spec) };
    if (revision === undefined) return base;
    const standing = standingOf(spec, latest(known, index, revision), now);
    return {
      ...base,
      result: standing.state,
      detail: standing.text,
      ...(standing.expiresAt !== undefined && Number.isFinite(standing.expiresAt)
        ? { expiresAt: rfc3339(standing.expiresAt) }
        : {}),
    };
  });
}

function kindOf(spec: CheckSpec): CheckView['kind'] {
  return spec.http === undefined ? 'commitStatus' : 'http';
}
