/**
 * Which Pipelines a train holds and which environments it gates: its members by name (`name` in
 * the train's namespace, `namespace/name` in another) or by label selector in the train's own
 * namespace, and the environments every member shares (absent `spec.environments`: each one all
 * members list, except any member's first, its source).
 */
import type { TrainMember } from './train-resource.js';
import type { PromotionTrain } from './train-resource.js';

/** The Pipelines of a namespace, as a train resolves members against them. */
export type CandidatesOf = (namespace: string) => readonly MemberCandidate[];

/** What the train needs to know of a Pipeline. */
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

/** Resolves `train` against the Pipelines of the namespaces its members are in. */
export function resolveTrain(train: PromotionTrain, candidates: CandidatesOf): ResolvedTrain {
  const own = train.metadata.namespace;
  const byNamespace = new Map<string, Map<string, MemberCandidate>>();
  const find = (member: string): MemberCandidate | undefined => {
    const ref = memberRef(own, member);
    let names = byNamespace.get(ref.namespace);
    if (names === undefined) {
      names = new Map(candidates(ref.namespace).map((p) => [p.name, p]));
      byNamespace.set(ref.namespace, names);
    }
    return names.get(ref.name);
  };
  const listed = train.spec.members ?? selected(train, candidates(own));
  const members = listed.filter((m) => find(m.name) !== undefined);
  const missing = listed.filter((m) => find(m.name) === undefined).map((m) => m.name);
  const found = members.map((m) => find(m.name)?.environments ?? []);
  return { members, missing, environments: gatedEnvironments(train, found) };
}

/** The Pipeline a member names: `namespace/name`, or `name` in the train's namespace. */
export function memberRef(
  trainNamespace: string,
  member: string,
): { namespace: string; name: string } {
  const slash = member.indexOf('/');
  return slash < 0
    ? { namespace: trainNamespace, name: member }
    : { namespace: member.slice(0, slash), name: member.slice(slash + 1) };
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
