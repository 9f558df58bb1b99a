/**
 * The core promise, checked on a chaos run's records (journal.ts) and final states (settle.ts).
 * Each check answers the list of its violations, one line each naming the pipeline, the
 * environment, the revisions and the times, so a failure says what happened without a rerun.
 */
import { INITIAL, type App } from './apps.js';
import { keyOf, type Answer, type ApprovalCall, type Delivery, type Journal } from './journal.js';
import { compareVersions } from './knobs.js';
import { DOWNSTREAM, converged, describeState, type AppState, type Settled } from './settle.js';

const accepted = (d: Delivery) => d.status >= 200 && d.status < 300;

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = out.get(k);
    if (group === undefined) out.set(k, [item]);
    else group.push(item);
  }
  return out;
}

/** 1. Per (pipeline, env), the accepted deliveries' revisions never go down in arrival order. */
export function olderAfterNewer(journal: Journal): string[] {
  const out: string[] = [];
  const byEnv = groupBy(journal.deliveries.filter(accepted), (d) => keyOf(d.pipeline, d.env));
  for (const [env, deliveries] of byEnv) {
    let newest: Delivery | undefined;
    const backwards: string[] = [];
    for (const d of deliveries) {
      if (newest !== undefined && compareVersions(d.revision, newest.revision) < 0)
        backwards.push(
          `${d.revision} at ${journal.t(d.at)} after ${newest.revision} at ${journal.t(newest.at)}`,
        );
      if (newest === undefined || compareVersions(d.revision, newest.revision) > 0) newest = d;
    }
    if (backwards.length > 0) out.push(`${env}: accepted ${backwards.join('; ')}`);
  }
  return out;
}

/**
 * 1b. One attempt at a time per environment: no two deliveries to one (pipeline, env) are in
 * flight at once (the second arrived before the receiver was done with the first). Two at once
 * is what lets an older revision land after a newer one, whatever their arrival order.
 */
export function concurrentAttempts(journal: Journal): string[] {
  const out: string[] = [];
  const byEnv = groupBy(journal.deliveries, (d) => keyOf(d.pipeline, d.env));
  for (const [env, deliveries] of byEnv) {
    const overlaps: string[] = [];
    let open: Delivery | undefined;
    for (const d of deliveries) {
      if (open?.doneAt !== undefined && d.at < open.doneAt) {
        const span = (x: Delivery) =>
          `${x.revision} (attempt ${String(x.attempt)}, ${journal.t(x.at)}-${journal.t(x.doneAt ?? x.at)})`;
        overlaps.push(`${span(open)} with ${span(d)}`);
      }
      if (open?.doneAt === undefined || (d.doneAt ?? Infinity) > open.doneAt) open = d;
    }
    if (overlaps.length > 0) out.push(`${env}: ${overlaps.join('; ')}`);
  }
  return out;
}

/** 2. At the end every downstream environment runs its record's revision, and it Succeeded. */
export function offRecord(states: readonly AppState[]): string[] {
  const out: string[] = [];
  for (const state of states) {
    for (const env of DOWNSTREAM) {
      const record = state.records[env];
      const running = String(state.running[env]);
      if (record === undefined) {
        if (running !== INITIAL) out.push(`${state.app.id} ${env}: runs ${running}, no record`);
        continue;
      }
      if (record.phase === 'Succeeded' && record.revision === running) continue;
      out.push(
        `${state.app.id} ${env}: runs ${running}, record ${record.revision} ${String(record.phase)} (attempt ${String(record.attempt)} by ${String(record.claimedBy)} at ${String(record.lastAttemptedTime)})`,
      );
    }
  }
  return out;
}

/** 3. No (pipeline, env, revision) is accepted by the receiver more than once. */
export function promotedTwice(journal: Journal): string[] {
  const out: string[] = [];
  const byRevision = groupBy(journal.deliveries.filter(accepted), (d) =>
    keyOf(d.pipeline, d.env, d.revision),
  );
  for (const [key, deliveries] of byRevision) {
    if (deliveries.length < 2) continue;
    const when = deliveries.map((d) => `${journal.t(d.at)} (attempt ${String(d.attempt)})`);
    out.push(`${key}: accepted ${String(deliveries.length)} times, at ${when.join(', ')}`);
  }
  return out;
}

/** 4. No record is left Claimed once the run has settled. */
export function leftClaimed(states: readonly AppState[]): string[] {
  const out: string[] = [];
  for (const state of states) {
    for (const env of DOWNSTREAM) {
      const r = state.records[env];
      if (r?.phase === 'Claimed')
        out.push(
          `${state.app.id} ${env}: ${r.revision} Claimed by ${String(r.claimedBy)} at ${String(r.lastAttemptedTime)} (attempt ${String(r.attempt)})`,
        );
    }
  }
  return out;
}

/**
 * The answers the API documents for a state worth retrying (a Kubernetes API that cannot be
 * reached, a gateway not ready or busy, status writes held): 503 with its code and Retry-After.
 */
const RETRY_LATER = new Set(['Unavailable', 'NotReady', 'NotEvaluated', 'QueueFull', 'StatusHeld']);

/**
 * 5. No request of the test was answered 5xx but the documented 503s that say when to retry:
 * one line per (kind, status, code), with examples.
 */
export function serverErrors(journal: Journal): string[] {
  const documented = (a: Answer) =>
    a.status === 503 && RETRY_LATER.has(a.code ?? '') && a.retryAfter !== undefined;
  const errors = journal.answers.filter((a) => a.status >= 500 && !documented(a));
  const byKind = groupBy(errors, (a) => `${a.kind} ${String(a.status)} ${String(a.code)}`);
  return [...byKind].map(([kind, answers]) => {
    const examples = answers
      .slice(0, 3)
      .map((a) => `${a.path} by ${a.replica} at ${journal.t(a.at)}`)
      .join('; ');
    return `${String(answers.length)} x ${kind}, e.g. ${examples}`;
  });
}

/** 6. Everything converged within the bound after the load stopped. */
export function notConverged(settled: Settled, boundMs: number): string[] {
  if (settled.convergedAfterMs !== undefined) return [];
  const out = settled.states
    .filter((s) => !converged(s))
    .map((s) => `not converged ${String(boundMs / 1000)} s after the load: ${describeState(s)}`);
  if (!settled.replicasReady) out.push('the replicas were not both live and ready');
  return out;
}

/**
 * 7. Every delivery of a gated prod revision came after an approval of it was sent that the
 * gateway may have taken: answered 2xx, or Replayed (a replica recorded it, its answer was lost),
 * or 5xx or not at all (whether it was recorded is unknown: check 5 reports the 5xx). The record
 * is written between the call and its answer, and the promotion may start before the answer
 * reaches the caller, so the call's send time is the bound; the summary counts the deliveries
 * that came before the answer.
 */
export function beforeApproval(journal: Journal, apps: readonly App[]): string[] {
  const gated = new Set(apps.filter((a) => a.gated).map((a) => a.id));
  const calls = groupBy(journal.approvals, (c) => keyOf(c.pipeline, c.revision));
  const out: string[] = [];
  for (const d of journal.deliveries) {
    if (d.env !== 'prod' || !gated.has(d.pipeline)) continue;
    const mine = calls.get(keyOf(d.pipeline, d.revision)) ?? [];
    const counted = mine.some((c) => approvalTaken(c) && c.sentAt <= d.at);
    if (counted) continue;
    const seen = mine
      .map(
        (c) =>
          `sent ${journal.t(c.sentAt)} answered ${String(c.status ?? c.error)} ${c.code ?? ''} at ${journal.t(c.answeredAt ?? 0)}`,
      )
      .join('; ');
    out.push(
      `${d.pipeline} prod ${d.revision}: delivered at ${journal.t(d.at)} (answered ${String(d.status)}) ${mine.length === 0 ? 'with no approval of it ever sent' : `before an approval counted: ${seen}`}`,
    );
  }
  return out;
}

/** Whether the gateway may have recorded an approval call: 2xx, Replayed, 5xx or no answer. */
export function approvalTaken(call: ApprovalCall): boolean {
  if (call.status === undefined || call.status >= 500 || call.code === 'Replayed') return true;
  return call.status >= 200 && call.status < 300;
}

/** 8. Every delivery of (env, R) came after the test rolled the upstream environment out at R. */
export function upstreamNotRun(journal: Journal): string[] {
  const upstreamOf: Record<string, string> = { staging: 'dev', prod: 'staging' };
  const rollouts = new Map(
    Object.values(upstreamOf).map((env) => [env, journal.rolloutsOf(env)] as const),
  );
  const out: string[] = [];
  for (const d of journal.deliveries) {
    const upstream = upstreamOf[d.env];
    if (upstream === undefined) continue;
    const first = rollouts.get(upstream)?.get(keyOf(d.pipeline, d.revision));
    if (first !== undefined && first.at <= d.at) continue;
    const ran = first === undefined ? 'never ran it' : `ran it only from ${journal.t(first.at)}`;
    out.push(
      `${d.pipeline} ${d.env} ${d.revision}: delivered at ${journal.t(d.at)}, but ${upstream} ${ran}`,
    );
  }
  return out;
}

/** 9. Every delivery carried a valid Standard Webhooks signature. */
export function badSignatures(journal: Journal): string[] {
  return journal.deliveries
    .filter((d) => !d.signatureOk)
    .map((d) => `${d.pipeline} ${d.env} ${d.revision} at ${journal.t(d.at)}: signature refused`);
}

/**
 * 10. No request about a Pipeline was answered 404: every Pipeline the test names exists, and
 * requests go only to replicas whose readiness probe passed (a Pipeline loaded but not yet
 * evaluated is no reason to deny it exists).
 */
export function notFound(journal: Journal): string[] {
  const missing = journal.answers.filter((a) => a.status === 404);
  const byReplica = groupBy(missing, (a) => `${a.kind} by ${a.replica}`);
  return [...byReplica].map(([kind, answers]) => {
    const examples = answers
      .slice(0, 3)
      .map((a) => `${a.path} at ${journal.t(a.at)}`)
      .join('; ');
    return `${String(answers.length)} x 404 ${kind}, e.g. ${examples}`;
  });
}

/** At most `limit` lines of `lines`, with how many were left out. */
export function excerpt(lines: readonly string[], limit = 12): string {
  const shown = lines.slice(0, limit);
  const more = lines.length > limit ? [`... and ${String(lines.length - limit)} more`] : [];
  return [...shown, ...more].join('\n');
}
