/**
 * The facts an environment's history tells: each promotion's start, failure and success (with
 * the revision the last earlier success delivered, which tells a first deployment from an
 * upgrade), and a rollback's as Rollback* (the entry's rollback mark: from what, by whom, why).
 * Pure.
 */
import type { PromotionHistoryEntry } from '../pipeline/pipeline-resource.js';
import { base, type EnvContext, type NotificationFact } from './fact-context.js';

/**
 * The facts of every history entry of the environment, oldest first. A revision that runs again
 * (promoted after a rollback from it, or rolled back to twice) tells its later runs' facts under
 * the subject `run N`: an event is known by (type, environment, revision, subject), so a later
 * run's facts would otherwise pass for the first run's, already recorded, and never be sent.
 */
export function promotionFacts(ctx: EnvContext): NotificationFact[] {
  const runs = new Map<string, number>();
  // The revision the entries before this one last delivered: what a success replaced.
  let previous: string | undefined;
  return (ctx.status.history ?? []).flatMap((entry) => {
    const run = (runs.get(entry.revision) ?? 0) + 1;
    runs.set(entry.revision, run);
    const facts = historyFacts(ctx, entry, run === 1 ? '' : `run ${String(run)}`, previous);
    if (entry.succeededTime !== undefined) previous = entry.revision;
    return facts;
  });
}

/** The notification types and words of a history entry: a promotion's, or a rollback's. */
function kindOf(entry: PromotionHistoryEntry) {
  const mark = entry.rollback;
  if (mark === undefined) {
    const words = { noun: 'Promotion', note: '' };
    return {
      ...words,
      started: 'PromotionStarted',
      failed: 'PromotionFailed',
      done: 'PromotionSucceeded',
    } as const;
  }
  const who = mark.automatic === true ? 'automatic' : `by ${mark.by.join(', ')}`;
  return {
    noun: 'Rollback',
    note: ` from ${mark.from} (${who}: ${mark.reason})`,
    started: 'RollbackStarted',
    failed: 'RollbackFailed',
    done: 'RollbackSucceeded',
  } as const;
}

function historyFacts(
  ctx: EnvContext,
  entry: PromotionHistoryEntry,
  subject: string,
  previous: string | undefined,
): NotificationFact[] {
  const where = `${ctx.pipeline.metadata.namespace}/${ctx.pipeline.metadata.name} ${ctx.env.name}`;
  const kind = kindOf(entry);
  const what = `${kind.noun} of ${where} to ${entry.revision}${kind.note}`;
  const facts: (NotificationFact | undefined)[] = [];
  const started = base(ctx, kind.started, entry.revision, entry.startedTime);
  if (started !== undefined)
    facts.push({
      ...started,
      subject,
      reason: kind.started,
      severity: 'info',
      message: `${what} started`,
      attempt: 1,
    });
  const shadow = shadowFact(ctx, entry, subject, what);
  if (shadow !== undefined) facts.push(shadow);
  const failed =
    entry.failedTime === undefined
      ? undefined
      : base(ctx, kind.failed, entry.revision, entry.failedTime);
  if (failed !== undefined) {
    const reason = /^([A-Z][A-Za-z0-9]*):/.exec(entry.failure ?? '')?.[1] ?? kind.failed;
    facts.push({
      ...failed,
      subject,
      reason,
      severity: 'error',
      message: `${what} failed: ${entry.failure ?? reason}`,
      attempt: entry.attempts,
    });
  }
  const succeeded =
    entry.succeededTime === undefined
      ? undefined
      : base(ctx, kind.done, entry.revision, entry.succeededTime);
  if (succeeded !== undefined)
    facts.push({
      ...succeeded,
      subject,
      reason: kind.done,
      severity: 'info',
      message: `${what} succeeded (attempt ${String(entry.attempts)})`,
      attempt: entry.attempts,
      ...(previous === undefined || kind.done !== 'PromotionSucceeded'
        ? {}
        : { previousRevision: previous }),
    });
  return facts.filter((f) => f !== undefined);
}

/**
 * A promotion that shadow gates would have held, told when it started: which gates, and the
 * reasons they would have given. None for a rollback (gates never hold one) or without holds.
 */
function shadowFact(
  ctx: EnvContext,
  entry: PromotionHistoryEntry,
  subject: string,
  what: string,
): NotificationFact | undefined {
  const holds = entry.wouldHold ?? [];
  if (holds.length === 0 || entry.rollback !== undefined) return undefined;
  const fact = base(ctx, 'ShadowHold', entry.revision, entry.startedTime);
  if (fact === undefined) return undefined;
  const gates = holds.map((h) => `${h.gate} ${h.name} (${h.reason})`).join(', ');
  return {
    ...fact,
    subject,
    reason: 'ShadowHold',
    severity: 'info',
    message: `${what} went on; in shadow mode it would have been held by: ${gates}`,
    wouldHold: holds.map((h) => ({ ...h })),
  };
}
