/**
 * A release train's notification events (docs/notifications.md, "Events"): TrainWaiting,
 * TrainPromoted and TrainFailed, each recorded once, with its whole body, in the train's outbox
 * (`status.outbox`) by the train status write (the one writer's conditional write) that begins a
 * release's wait for its members' gates or ends its promotion, or by the first write after that
 * which finds it owed and missing (an alert learnt of later); the failed members and why, the
 * members stopped. From there the notifier delivers it to the PromotionAlerts that
 * select one of the train's members, on its own stream per (train, environment). Pure.
 */
import type {
  PromotionTrain,
  TrainOutboxEvent,
  TrainRelease,
  TrainStatus,
} from '../trains/train-resource.js';
import { MAX_TRAIN_OUTBOX } from '../shapes/promotion-train.js';
import { parseTimestamp } from '../time/kube-time.js';
import type { NotificationFact } from './fact-context.js';
import type { NotificationType } from './notification-event.js';
import type { EnvironmentStatus } from '../pipeline/pipeline-resource.js';
import {
  selects,
  type SelectedPipeline,
  type SelectingAlert,
  type SelectionPolicy,
} from './alert-selection.js';

/** A PromotionTrain and its members, which an alert must select one of to get its events. */
export interface TrainSelection {
  train: PromotionTrain;
  members: readonly SelectedPipeline[];
}
import { OUTBOX_KEEP_MARGIN_MS } from './outbox-record.js';

/** What a member's failure and the members stopped were, for a release that failed. */
export interface ReleaseOutcome {
  failed: { member: string; revision: string; reason: string }[];
  stopped: string[];
}

/** What recording needs: the horizon, which events are wanted, and a failure's particulars. */
export interface TrainOutboxPolicy {
  /** An event older than this is never delivered (config notifications.horizonMs). */
  horizonMs: number;
  /** Whether some PromotionAlert selects a member of `train` and wants events of `type`. */
  wants(train: PromotionTrain, type: NotificationType): boolean;
  /** The failed and stopped members of `release` into `environment`, as the pass sees them. */
  outcomeOf(environment: string, release: TrainRelease): ReleaseOutcome;
}

/**
 * `next` (the status about to be written) with the event each environment's release owes and
 * the outbox lacks, when some alert wants it: TrainWaiting for a release waiting for its
 * members' gates, TrainPromoted or TrainFailed for one whose promotion ended. Owed is read from
 * the release itself, not from the change, so a pass after an alert became known records what
 * the write that ended the release could not (the catch-up the Pipeline outbox has); an event
 * older than the horizon is never owed. Events past the horizon and its margin are let go, and
 * the outbox is kept to MAX_TRAIN_OUTBOX, the oldest going first.
 */
export function withTrainEvents(
  train: PromotionTrain,
  next: TrainStatus,
  now: number,
  policy: TrainOutboxPolicy,
): TrainStatus {
  const floor = now - policy.horizonMs - OUTBOX_KEEP_MARGIN_MS;
  const kept = (next.outbox ?? []).filter((e) => (parseTimestamp(e.time) ?? -Infinity) >= floor);
  const owed: TrainOutboxEvent[] = [];
  for (const env of next.environments ?? []) {
    const release = env.release;
    if (release === undefined) continue;
    const event =
      release.state === 'Waiting'
        ? waitOf(train, env.name, release)
        : endOf(train, env.name, release, policy);
    if (event === undefined || kept.some((e) => sameEvent(e, event))) continue;
    const at = parseTimestamp(event.time) ?? -Infinity;
    if (at < now - policy.horizonMs) continue;
    if (policy.wants(train, event.type as NotificationType)) owed.push(event);
  }
  const outbox = [...kept, ...owed].slice(-MAX_TRAIN_OUTBOX);
  const { outbox: _previous, ...rest } = next;
  return outbox.length === 0 ? rest : { ...rest, outbox };
}

/** One event of one release: its type, environment, combination and time say which. */
function sameEvent(a: TrainOutboxEvent, b: TrainOutboxEvent): boolean {
  return (
    a.type === b.type &&
    a.environment === b.environment &&
    a.revision === b.revision &&
    parseTimestamp(a.time) === parseTimestamp(b.time)
  );
}

/**
 * TrainWaiting, for a release waiting for its members' gates (not a suspended train's), told at
 * the time the wait began: the combination an approval of it signs, and the members it waits for.
 */
function waitOf(
  train: PromotionTrain,
  environment: string,
  release: TrainRelease,
): TrainOutboxEvent | undefined {
  if (release.reason !== 'MemberGates') return undefined;
  const { namespace, name } = train.metadata;
  const waitingFor = release.waitingFor ?? [];
  return {
    type: 'TrainWaiting',
    environment,
    revision: release.digest,
    subject: '',
    time: release.startedAt,
    reason: 'MemberGates',
    severity: 'info',
    message: clip(
      `train ${namespace}/${name}'s release ${release.digest} into ${environment} waits for the gates of ${waitingFor.join(', ')}; one approval of the combination serves every member: POST /v1/trains/${namespace}/${name}/environments/${encodeURIComponent(environment)}/approvals`,
      2048,
    ),
    train: { digest: release.digest, members: { ...release.members }, waitingFor: [...waitingFor] },
  };
}

/**
 * The event of a release whose promotion ended (Succeeded or Failed), told at the time it ended;
 * undefined for any other, and for one that ended without promoting (every member already ran it).
 */
function endOf(
  train: PromotionTrain,
  environment: string,
  release: TrainRelease,
  policy: TrainOutboxPolicy,
): TrainOutboxEvent | undefined {
  if (release.state !== 'Succeeded' && release.state !== 'Failed') return undefined;
  if (release.finishedAt === undefined) return undefined;
  const name = `${train.metadata.namespace}/${train.metadata.name}`;
  const base = {
    environment,
    revision: release.digest,
    subject: '',
    time: release.finishedAt,
  };
  const combination = Object.entries(release.members)
    .map(([member, revision]) => `${member} ${revision}`)
    .join(', ');
  if (release.state === 'Succeeded')
    return {
      ...base,
      type: 'TrainPromoted',
      reason: 'TrainPromoted',
      severity: 'info',
      message: `train ${name} promoted ${environment} to ${combination} (${release.digest})`,
      train: { digest: release.digest, members: { ...release.members } },
    };
  const { failed, stopped } = policy.outcomeOf(environment, release);
  const why = failed.map((f) => `${f.member} ${f.revision}: ${f.reason}`).join('; ');
  const halted = stopped.length === 0 ? 'no member was stopped' : `stopped: ${stopped.join(', ')}`;
  return {
    ...base,
    type: 'TrainFailed',
    reason: 'MemberFailed',
    severity: 'error',
    message: clip(
      `train ${name}'s release into ${environment} failed: ${why === '' ? (release.message ?? 'a member failed') : why}; ${halted}`,
      2048,
    ),
    train: {
      digest: release.digest,
      members: { ...release.members },
      failed: failed.map((f) => ({ ...f, reason: clip(f.reason, 1024) })),
      stopped,
    },
  };
}

/**
 * What failed and what was stopped in a release that failed: each member the release names as
 * failed (its `waitingFor`) with the failure its environment's history records for its revision,
 * and each other member that neither runs its revision (`running`) nor had its promotion of it
 * claimed (its environment's promotion record): the members the failure stopped.
 */
export function releaseOutcome(
  release: TrainRelease,
  statusOf: (member: string) => EnvironmentStatus | undefined,
  running: (member: string) => string | undefined,
): ReleaseOutcome {
  const failedNames = release.waitingFor ?? [];
  const failed = failedNames.map((member) => {
    const revision = release.members[member] ?? '';
    const entry = statusOf(member)?.history?.findLast((e) => e.revision === revision);
    return { member, revision, reason: entry?.failure ?? 'its promotion failed' };
  });
  const stopped = Object.keys(release.members)
    .sort()
    .filter((member) => {
      const revision = release.members[member];
      if (failedNames.includes(member) || running(member) === revision) return false;
      return statusOf(member)?.promotion?.revision !== revision;
    });
  return { failed, stopped };
}

const TRAIN_TYPES = ['TrainWaiting', 'TrainPromoted', 'TrainFailed'] as const;

function isTrainType(type: string): type is (typeof TRAIN_TYPES)[number] {
  return (TRAIN_TYPES as readonly string[]).includes(type);
}

/** The recorded events of `train` as facts, their `pipeline` naming the train. */
export function trainFacts(train: PromotionTrain): NotificationFact[] {
  const { namespace, name } = train.metadata;
  const facts: NotificationFact[] = [];
  for (const event of train.status?.outbox ?? []) {
    const at = parseTimestamp(event.time);
    const { type } = event;
    if (at === undefined || !isTrainType(type)) continue;
    facts.push({ ...event, type, at, pipeline: { namespace, name }, targets: [] });
  }
  return facts;
}

/** Each train's facts, read once per version of it (the book replaces a train that changed). */
export class TrainFactsByVersion {
  private readonly facts = new WeakMap<PromotionTrain, NotificationFact[]>();

  /** The facts of every train of which `alert` selects a member. */
  selectedBy(
    alert: SelectingAlert,
    trains: readonly TrainSelection[],
    policy: SelectionPolicy,
  ): NotificationFact[] {
    const out: NotificationFact[] = [];
    for (const { train, members } of trains) {
      if (!members.some((m) => selects(alert, m, policy))) continue;
      let told = this.facts.get(train);
      if (told === undefined) {
        told = trainFacts(train);
        this.facts.set(train, told);
      }
      out.push(...told);
    }
    return out;
  }
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
