/**
 * Which Pipelines a train holds and which environments it gates: its members by name or label
 * selector, in the train's own namespace, and the environments every member shares (absent
 * `spec.environments`: each one all members list, except any member's first, its source).
 */
import type { TrainMember } from './train-resource.js';
import type { PromotionTrain } from './train-resource.js';

/** What the train needs to know of a Pipeline of its namespace. */
export interface MemberCandidate {
  name: string;
  labels?: Readonly<Record<string, string>>;
  /** Its environments' names, in spec order. */
  environments: readonly string[];
}

/** The train's members found, the names it lists but could not find, and where it gates. */
export interface ResolvedTrain {
  members: TrainMember[];
  missing: string[];
  environments: string[];
}

/** Resolves `train` against the Pipelines of its namespace. */
export function resolveTrain(
  train: PromotionTrain,
  pipelines: readonly MemberCandidate[],
): ResolvedTrain {
  const byName = new Map(pipelines.map((p) => [p.name, p]));
  const listed = train.spec.members ?? selected(train, pipelines);
  const members = listed.filter((m) => byName.has(m.name));
  const missing = listed.filter((m) => !byName.has(m.name)).map((m) => m.name);
  const found = members.map((m) => byName.get(m.name)?.environments ?? []);
  return { members, missing, environments: gatedEnvironments(train, found) };
}

function selected(train: PromotionTrain, pipelines: readonly MemberCandidate[]): TrainMember[] {
  const wanted = Object.entries(train.spec.selector?.matchLabels ?? {});
  return pipelines
    .filter((p) => wanted.every(([key, value]) => p.labels?.[key] === value))
    .map((p) => ({ name: p.name }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The environments the train gates, in the first member's order: those `spec.environments`
 * names, or every one all members share; never a member's first (nothing promotes into a source).
 */
export function gatedEnvironments(
  train: PromotionTrain,
  memberEnvironments: readonly (readonly string[])[],
): string[] {
  const [first] = memberEnvironments;
  if (first === undefined) return [];
  const sources = new Set(memberEnvironments.map((envs) => envs[0]));
  const named = train.spec.environments;
  return first.filter(
    (env) =>
      !sources.has(env) &&
      memberEnvironments.every((envs) => envs.includes(env)) &&
      (named === undefined || named.includes(env)),
  );
}

/** The environment before `env` in a member's environments (its upstream), if any. */
export function upstreamOf(environments: readonly string[], env: string): string | undefined {
  const index = environments.indexOf(env);
  return index > 0 ? environments[index - 1] : undefined;
}
