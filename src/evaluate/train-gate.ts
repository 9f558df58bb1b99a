/**
 * The release-train gate: a Pipeline that belongs to a PromotionTrain gating an environment
 * promotes there only its revision of the train's current release, only while that release is
 * Promoting, and only once the members it dependsOn run their release revisions healthy there
 * (docs/policy.md, "Release trains"). Pure: the train's release and the dependencies' verified
 * state come in as input.
 */
import { display } from '../text/text.js';
import type { AuthorizationRecord } from '../pipeline/pipeline-resource.js';
import type { EnvironmentDecision } from './decisions.js';
import { Reasons } from './reasons.js';
import type { TrainGateInput } from './train-input.js';

/**
 * `decision` as the train lets it stand: a Promote (not a rollback, not a redelivery of what the
 * environment was promoted to already) the train does not let through becomes Waiting with the
 * train's reason. A Promote it lets through carries the pull request it shares with other
 * members, and a revision of the release still pending (held by the train or its own gates)
 * carries the one it would share, for its preview; anything else is returned as it is.
 */
export function withTrainGate(
  gate: TrainGateInput | undefined,
  decision: EnvironmentDecision,
): EnvironmentDecision {
  if (gate === undefined) return decision;
  if (decision.rollback !== undefined || decision.redelivery !== undefined) return decision;
  if (decision.outcome !== 'Promote')
    return PENDING.has(decision.outcome)
      ? withSharedPullRequest(gate, decision, PREVIEWED)
      : decision;
  const revision = decision.revision ?? '';
  const hold = trainHold(gate, decision.environment, revision);
  if (hold === undefined) return withSharedPullRequest(gate, decision, ['Promoting']);
  const held = {
    environment: decision.environment,
    revision,
    outcome: 'Waiting' as const,
    ...hold,
  };
  return withSharedPullRequest(gate, held, PREVIEWED);
}

/** The outcomes that keep a revision pending, which a preview shows the change of. */
const PENDING: ReadonlySet<string> = new Set(['Waiting', 'WaitingApproval']);
/** The release states whose pending revisions are previewed with the shared pull request. */
const PREVIEWED: readonly string[] = ['Waiting', 'Promoting'];

/**
 * `decision` with the pull request its revision shares with other members under the train's
 * release, when the release is in one of `states` and takes that revision; otherwise unchanged.
 */
function withSharedPullRequest(
  gate: TrainGateInput,
  decision: EnvironmentDecision,
  states: readonly string[],
): EnvironmentDecision {
  const { release } = gate;
  const names = gate.sharedPullRequest ?? [];
  if (release === undefined || !states.includes(release.state)) return decision;
  if (gate.probe === true || names.length < 2) return decision;
  if (decision.revision === undefined || release.members[gate.member] !== decision.revision)
    return decision;
  const members: Record<string, string> = {};
  for (const name of names) {
    const revision = release.members[name];
    if (revision !== undefined) members[name] = revision;
  }
  if (Object.keys(members).length < 2) return decision;
  const sharedPullRequest = { train: gate.train, digest: release.digest, members };
  return { ...decision, sharedPullRequest };
}

/**
 * The members whose promotions share `member`'s pull request: those with the same repository
 * (`repository`: a key for forge, URL, base branch and Secret; absent = not the pull-request
 * strategy), leaving out any with a dependsOn edge to another of them, whose order one merge
 * could not keep. Sorted; empty when `member` has nobody to share with.
 */
export function sharedPullRequestMembers(
  member: string,
  members: readonly { name: string; dependsOn?: readonly string[]; repository?: string }[],
): string[] {
  const mine = members.find((m) => m.name === member)?.repository;
  if (mine === undefined) return [];
  const same = members.filter((m) => m.repository === mine);
  const names = new Set(same.map((m) => m.name));
  const ordered = new Set<string>();
  for (const m of same)
    for (const d of m.dependsOn ?? []) if (names.has(d) && d !== m.name) ordered.add(m.name).add(d);
  const shared = same.map((m) => m.name).filter((n) => !ordered.has(n));
  return shared.includes(member) && shared.length > 1 ? shared.sort() : [];
}

/** Why the train holds `revision` out of `env`, or undefined when it lets it through. */
export function trainHold(
  gate: TrainGateInput,
  env: string,
  revision: string,
): { reason: string; message: string } | undefined {
  const { release, train } = gate;
  const wanted = release?.members[gate.member];
  if (release === undefined || wanted !== revision) {
    const why =
      release === undefined
        ? 'no combination verified together upstream has been released yet'
        : `its release ${release.digest.slice(0, 19)} takes ${display(wanted ?? '(none)')}`;
    return {
      reason: Reasons.TrainCombination,
      message: `train ${train} holds ${display(revision)} out of ${env}: ${why}`,
    };
  }
  if (gate.probe === true || release.state === 'Succeeded') return undefined;
  if (release.state !== 'Promoting') {
    const what = release.state === 'Failed' ? 'failed' : "waits for every member's gates";
    return {
      reason: Reasons.TrainGates,
      message: `train ${train}'s release ${release.digest.slice(0, 19)} into ${env} ${what}`,
    };
  }
  const behind = gate.dependsOn.filter((d) => d.running !== release.members[d.name]);
  if (behind.length === 0) return undefined;
  return {
    reason: Reasons.TrainOrder,
    message: `train ${train}: ${env} takes ${gate.member} after ${behind.map((d) => d.name).join(', ')} run their release revisions healthy there`,
  };
}

/**
 * The records of an environment that may count there: every record not given for a train's
 * combination, and one given for a combination (`combinationDigest`) only while the train's
 * release into the environment is that combination, so an approval of one combination never
 * counts for a member revision of another.
 */
export function forCombination(
  gate: TrainGateInput | undefined,
  records: readonly AuthorizationRecord[],
): readonly AuthorizationRecord[] {
  if (!records.some((r) => r.combinationDigest !== undefined)) return records;
  const digest = gate?.release?.digest;
  return records.filter((r) => r.combinationDigest === undefined || r.combinationDigest === digest);
}
