/**
 * The release-train gate: a Pipeline that belongs to a PromotionTrain gating an environment
 * promotes there only its revision of the train's current release, only while that release is
 * Promoting, and only once the members it dependsOn run their release revisions healthy there
 * (docs/policy.md, "Release trains"). Pure: the train's release and the dependencies' verified
 * state come in as input.
 */
import { display } from '../text/text.js';
import type { EnvironmentDecision } from './decisions.js';
import { Reasons } from './reasons.js';
import type { TrainGateInput } from './train-input.js';

/**
 * `decision` as the train lets it stand: a Promote (not a rollback, not a redelivery of what the
 * environment was promoted to already) the train does not let through becomes Waiting with the
 * train's reason; anything else is returned as it is.
 */
export function withTrainGate(
  gate: TrainGateInput | undefined,
  decision: EnvironmentDecision,
): EnvironmentDecision {
  if (gate === undefined || decision.outcome !== 'Promote') return decision;
  if (decision.rollback !== undefined || decision.redelivery !== undefined) return decision;
  const revision = decision.revision ?? '';
  const hold = trainHold(gate, decision.environment, revision);
  if (hold === undefined) return withSharedPullRequest(gate, decision);
  return { environment: decision.environment, revision, outcome: 'Waiting', ...hold };
}

/** A Promote the train lets through, with the pull request it shares with other members. */
function withSharedPullRequest(
  gate: TrainGateInput,
  decision: EnvironmentDecision,
): EnvironmentDecision {
  const { release } = gate;
  const names = gate.sharedPullRequest ?? [];
  if (release?.state !== 'Promoting' || gate.probe === true || names.length < 2) return decision;
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
