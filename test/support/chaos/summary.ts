/**
 * The chaos run in a few lines, printed at its end whether it passed or not: what was sent and
 * answered, what the receiver got and did, what the chaos did and when, and how long the fleet
 * took to converge.
 */
import type { App } from './apps.js';
import { approvalTaken } from './checks.js';
import type { Journal } from './journal.js';
import type { Knobs } from './knobs.js';
import type { Settled } from './settle.js';

/** What the summary reads besides the journal. */
export interface SummaryInput {
  knobs: Knobs;
  journal: Journal;
  apps: readonly App[];
  eventsSent: number;
  loadMs: number;
  kills: number;
  settled: Settled;
  boundMs: number;
  notifications: number;
}

function counts<T>(items: readonly T[], key: (item: T) => string): string {
  const out = new Map<string, number>();
  for (const item of items) out.set(key(item), (out.get(key(item)) ?? 0) + 1);
  return [...out]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${k} x${String(n)}`)
    .join(', ');
}

/** Gated prod deliveries that arrived after their approval was sent but before its 2xx answer. */
function beforeAnswer(journal: Journal, apps: readonly App[]): number {
  const gated = new Set(apps.filter((a) => a.gated).map((a) => a.id));
  return journal.deliveries.filter((d) => {
    if (d.env !== 'prod' || !gated.has(d.pipeline)) return false;
    const calls = journal.approvals.filter(
      (c) => c.pipeline === d.pipeline && c.revision === d.revision && approvalTaken(c),
    );
    return calls.some((c) => c.sentAt <= d.at) && !calls.some((c) => (c.answeredAt ?? 0) <= d.at);
  }).length;
}

/** The summary lines of a run. */
export function summary(input: SummaryInput): string {
  const { knobs, journal, settled } = input;
  const seconds = input.loadMs / 1000;
  const answers = ['event', 'approval', 'read'].map((kind) => {
    const mine = journal.answers.filter((a) => a.kind === kind);
    return `${kind}s ${counts(mine, (a) => `${String(a.status)}${a.code === undefined ? '' : ` ${a.code}`}`) || 'none'}`;
  });
  const d = journal.deliveries;
  const rollouts = counts(journal.rollouts, (r) => r.env);
  const converged =
    settled.convergedAfterMs === undefined
      ? `NOT converged within ${String(input.boundMs / 1000)} s`
      : `converged ${(settled.convergedAfterMs / 1000).toFixed(1)} s after the load (bound ${String(input.boundMs / 1000)} s)`;
  return [
    `chaos summary: seed ${String(knobs.seed)}, ${String(knobs.pipelines)} Pipelines (${String(input.apps.filter((a) => a.gated).length)} gated), load ${seconds.toFixed(0)} s at ${String(knobs.rate)} dev revisions/s`,
    `  events sent ${String(input.eventsSent)} (${(input.eventsSent / seconds).toFixed(1)}/s during the load); answers: ${answers.join('; ')}`,
    `  connection errors ${String(journal.connectionErrors)} (retried elsewhere), requests unanswered ${String(journal.unanswered)}, approvals sent ${String(journal.approvals.length)} (gated deliveries before the approval's answer arrived: ${String(beforeAnswer(journal, input.apps))})`,
    `  deliveries ${String(d.length)}: ${counts(d, (x) => (x.status === 204 ? 'accepted' : x.status === 0 ? 'dropped' : `refused ${String(x.status)}`))}; rollouts ${rollouts}`,
    `  notifications received ${String(input.notifications)}; kills ${String(input.kills)}, unexpected exits ${String(journal.unexpectedExits.length)}; ${converged}`,
    `  timeline: ${journal.chaos.map((s) => `${journal.t(s.at)} ${s.what}`).join('; ')}`,
  ].join('\n');
}
