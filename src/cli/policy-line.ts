/**
 * One environment's policy gates in a short line for people, as `promotion-gateway status` and
 * the demo's `status` print them: `halted by alice until 2026-11-26T08:00:00Z (incident 42);
 * window closed, opens 2026-11-25T18:00:00Z; soak 12m left; checks 2/3 passed, 1 pending`.
 * Pure: time left is counted from `now`, the reader's clock, so a line printed long after the
 * view was computed still says how long is left.
 */
import { formatDuration } from '../time/duration.js';
import type { CheckView, PolicyView, SoakView, WindowView } from '../evaluate/policy-view.js';
import type { HaltView } from '../evaluate/policy-view.js';
import type { DriftPolicyView } from '../evaluate/drift.js';
import { clip } from '../text/text.js';
import { parseTimestamp } from '../time/kube-time.js';

/** The line of `view` at `now` (ms); '' when it shows nothing. */
export function policyLine(view: PolicyView | undefined, now: number): string {
  if (view === undefined) return '';
  return [
    view.halts === undefined ? '' : haltsPart(view.halts),
    view.window === undefined ? '' : windowPart(view.window),
    view.soak === undefined ? '' : soakPart(view.soak, now),
    view.checks === undefined ? '' : checksPart(view.checks),
    view.drift === undefined ? '' : driftPart(view.drift),
    view.wouldHold === undefined ? '' : shadowPart(view.wouldHold),
  ]
    .filter((part) => part !== '')
    .join('; ');
}

/** `shadow window "freeze" would hold`, `shadow soak would hold`: what shadow gates would hold. */
function shadowPart(holds: NonNullable<PolicyView['wouldHold']>): string {
  const windows = [
    ...new Set(holds.filter((h) => h.gate === 'window').map((h) => `"${clip(h.name, 63)}"`)),
  ];
  const parts = [
    windows.length === 0
      ? ''
      : `${windows.length === 1 ? 'window' : 'windows'} ${windows.join(', ')}`,
    holds.some((h) => h.gate === 'soak') ? 'soak' : '',
  ].filter((p) => p !== '');
  return `shadow ${parts.join(' and ')} would hold`;
}

function driftPart(drift: DriftPolicyView): string {
  const policy = `drift ${drift.mode} (rollout timeout ${drift.rolloutTimeout})`;
  if (drift.drifted === undefined) return policy;
  const { promoted, running, arrived } = drift.drifted;
  const runs = running.length === 0 ? 'no revision' : running.map((r) => clip(r, 40)).join(', ');
  const history = arrived ? 'ran it, then left it' : 'never ran it';
  const next = drift.corrects === true ? 'promoting it again' : 'reported only';
  return `drifted: runs ${runs}, not ${clip(promoted, 40)} (${history}; ${next}), ${policy}`;
}

function haltsPart(halts: readonly HaltView[]): string {
  const [first] = halts;
  if (first === undefined) return '';
  const until = first.until === undefined ? 'until lifted' : `until ${first.until}`;
  const more = halts.length > 1 ? ` (and ${String(halts.length - 1)} more)` : '';
  return `halted by ${first.principal} ${until} (${clip(first.reason, 60)})${more}`;
}

function windowPart(window: WindowView): string {
  if (window.open) {
    return window.closesAt === undefined ? 'window open' : `window open until ${window.closesAt}`;
  }
  if (window.problem !== undefined) return `windows invalid: ${clip(window.problem, 80)}`;
  if (window.nextOpening !== undefined) return `window closed, opens ${window.nextOpening}`;
  if (window.noOpeningBefore !== undefined)
    return `window closed, no opening before ${window.noOpeningBefore}`;
  return 'window closed, no opening ahead';
}

function soakPart(soak: SoakView, now: number): string {
  if (soak.invalid === true) return `soak ${soak.duration} longer than the gateway counts`;
  const end = parseTimestamp(soak.endsAt);
  // The end is known: count from the reader's clock; else the time left when it was computed.
  const left = end === undefined ? soak.left : formatDuration(coarse(end - now));
  if (left === undefined) return `soak ${soak.duration}`;
  return left === '0s' ? `soak ${soak.duration} done` : `soak ${left} left`;
}

function checksPart(checks: readonly CheckView[]): string {
  const counted = checks.filter((c) => c.result !== undefined);
  if (counted.length === 0)
    return checks.length === 1 ? '1 check' : `${String(checks.length)} checks`;
  const count = (result: CheckView['result']) => checks.filter((c) => c.result === result).length;
  const others = (['Failed', 'Pending', 'Unknown'] as const)
    .filter((r) => count(r) > 0)
    .map((r) => `, ${String(count(r))} ${r.toLowerCase()}`);
  return `checks ${String(count('Passed'))}/${String(checks.length)} passed${others.join('')}`;
}

/**
 * Time left rounded up to the minute from a minute on (`12m`, `1h5m`), to the second below: a
 * line that changes every second would be printed again at every tick of `status --watch`.
 */
function coarse(ms: number): number {
  if (ms <= 0) return 0;
  const unit = ms >= 60_000 ? 60_000 : 1_000;
  return Math.ceil(ms / unit) * unit;
}
