/**
 * Which trains are in force. Each train is resolved against the Pipelines and refused (Ready=False
 * with a named reason) when it names another namespace's member and the configuration does not
 * let its namespace do so, when one of its members is already held by a train that comes first
 * (the older creationTimestamp, then namespace/name: the same answer on every replica, whatever
 * order it listed them in), or when its members share no environment it could gate. A refused
 * train gates nothing and holds no member, so the member stays with the train that came first.
 */
import { memberRef, resolveTrain, type CandidatesOf, type ResolvedTrain } from './train-members.js';
import { trainName, type PromotionTrain } from './train-resource.js';

/** Which trains may name members of other namespaces (config `trains.crossNamespace`). */
export type CrossNamespacePolicy = boolean | readonly string[];

/** Why a valid spec is still not used: the Ready=False reason its status gives. */
export type RefusalReason =
  'CrossNamespaceNotAllowed' | 'MemberInAnotherTrain' | 'NoSharedEnvironment';

/** A train as resolved, and why it is refused (absent: in force). */
export interface TrainStanding {
  train: PromotionTrain;
  resolved: ResolvedTrain;
  refusal?: { reason: RefusalReason; message: string };
}

/** Whether trains of `namespace` may name members of other namespaces. */
export function crossNamespaceAllowed(policy: CrossNamespacePolicy, namespace: string): boolean {
  return typeof policy === 'boolean' ? policy : policy.includes(namespace);
}

/** Orders trains by precedence: the older creationTimestamp first (absent last), then name. */
export function byPrecedence(a: PromotionTrain, b: PromotionTrain): number {
  const created = (t: PromotionTrain) => {
    const stamp = t.metadata.creationTimestamp;
    const ms = typeof stamp === 'string' ? Date.parse(stamp) : Number.NaN;
    return Number.isNaN(ms) ? Number.POSITIVE_INFINITY : ms;
  };
  const [ca, cb] = [created(a), created(b)];
  if (ca !== cb) return ca < cb ? -1 : 1;
  const [na, nb] = [trainName(a), trainName(b)];
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** The namespaces a train's members may be in: its own and each one a member names. */
export function namespacesOf(train: PromotionTrain): Set<string> {
  const own = train.metadata.namespace;
  return new Set([own, ...(train.spec.members ?? []).map((m) => memberRef(own, m.name).namespace)]);
}

/** Every train's standing, in precedence order. */
export function trainStandings(
  trains: readonly PromotionTrain[],
  candidates: CandidatesOf,
  policy: CrossNamespacePolicy,
): TrainStanding[] {
  const held = new Map<string, string>();
  return [...trains].sort(byPrecedence).map((train) => {
    const resolved = resolveTrain(train, candidates);
    const refusal = refusalOf(train, resolved, held, policy);
    if (refusal !== undefined) return { train, resolved, refusal };
    const own = train.metadata.namespace;
    for (const m of resolved.members) held.set(memberKey(own, m.name), trainName(train));
    return { train, resolved };
  });
}

function refusalOf(
  train: PromotionTrain,
  resolved: ResolvedTrain,
  held: ReadonlyMap<string, string>,
  policy: CrossNamespacePolicy,
): TrainStanding['refusal'] {
  const own = train.metadata.namespace;
  const foreign = (train.spec.members ?? []).filter(
    (m) => memberRef(own, m.name).namespace !== own,
  );
  if (foreign.length > 0 && !crossNamespaceAllowed(policy, own))
    return {
      reason: 'CrossNamespaceNotAllowed',
      message: `members of other namespaces (${foreign.map((m) => m.name).join(', ')}) are not allowed for trains in ${own} (the gateway's trains.crossNamespace)`,
    };
  for (const m of resolved.members) {
    const other = held.get(memberKey(own, m.name));
    if (other !== undefined)
      return {
        reason: 'MemberInAnotherTrain',
        message: `${m.name} is a member of ${other}, which came first (older, or same age and first by name)`,
      };
  }
  if (resolved.members.length > 0 && resolved.environments.length === 0)
    return {
      reason: 'NoSharedEnvironment',
      message:
        train.spec.environments === undefined
          ? "the members share no environment besides a member's first"
          : `the members share none of spec.environments besides a member's first`,
    };
  return undefined;
}

function memberKey(trainNamespace: string, member: string): string {
  const ref = memberRef(trainNamespace, member);
  return `${ref.namespace}/${ref.name}`;
}
