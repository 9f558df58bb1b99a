/**
 * An environment's policy gates in a few words that do not depend on the reader's clock (a
 * closing time, not "12m left"), so a rendered row stays true until the view changes and can be
 * cached and sent once: `halted by alice`, `window closed, opens 2026-11-25 18:00 UTC`,
 * `soaking 30m, until 2026-11-25 18:00 UTC`, `checks: 1 of 2 failed`. Only the gates that hold
 * a promotion now are named, when the view says which. Pure.
 */
import type { DriftPolicyView } from '../evaluate/drift.js';
import type { CheckView, PolicyView } from '../evaluate/policy-view.js';
import { clip } from '../text/text.js';
import { parseTimestamp } from '../time/kube-time.js';

/** The words of `view`'s gates ('' when none holds). */
export function policyWords(view: PolicyView | undefined): string {
  if (view === undefined) return '';
  const holds = (part: 'halts' | 'window' | 'soak' | 'checks') =>
    view.holding === undefined || view.holding.includes(part);
  const parts: string[] = [];
  const [halt] = view.halts ?? [];
  if (halt !== undefined && holds('halts')) {
    const until = halt.until === undefined ? '' : `, until ${shortTime(halt.until)}`;
    parts.push(`halted by ${clip(halt.principal, 64)}${until}: ${clip(halt.reason, 60)}`);
  }
  const window = view.window;
  if (window !== undefined && !window.open && holds('window')) {
    if (window.problem !== undefined) parts.push(`windows invalid: ${clip(window.problem, 60)}`);
    else if (window.nextOpening !== undefined)
      parts.push(`window closed, opens ${shortTime(window.nextOpening)}`);
    else parts.push('window closed');
  }
  const soak = view.soak;
  if (soak !== undefined && holds('soak')) {
    if (soak.invalid === true) parts.push(`soak ${soak.duration} too long to count`);
    else if (soak.endsAt !== undefined && soak.left !== '0s')
      parts.push(`soaking ${soak.duration}, until ${shortTime(soak.endsAt)}`);
    else if (soak.healthySince === undefined) parts.push(`soak ${soak.duration} not started`);
  }
  if (view.checks !== undefined && holds('checks')) parts.push(checkWords(view.checks));
  if (view.drift !== undefined) parts.push(driftWords(view.drift));
  return parts.filter((p) => p !== '').join('; ');
}

function driftWords(drift: DriftPolicyView): string {
  const drifted = drift.drifted;
  if (drifted === undefined) return '';
  const running = clip(drifted.running.join(', ') || 'no revision', 40);
  const next = drift.corrects === true ? 'promoting it again' : 'reported only';
  return `drifted: runs ${running}, not ${clip(drifted.promoted, 40)} (${next})`;
}

function checkWords(checks: readonly CheckView[]): string {
  const count = (result: CheckView['result']) => checks.filter((c) => c.result === result).length;
  const total = String(checks.length);
  if (count('Failed') > 0) return `checks: ${String(count('Failed'))} of ${total} failed`;
  if (count('Pending') > 0) return `checks: ${String(count('Pending'))} of ${total} pending`;
  if (count('Unknown') > 0) return `checks: ${String(count('Unknown'))} of ${total} unknown`;
  return '';
}

/** `2026-11-25 18:00 UTC` for an RFC 3339 time; the text itself when it is none. */
export function shortTime(text: string): string {
  const ms = parseTimestamp(text);
  if (ms === undefined) return clip(text, 40);
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
