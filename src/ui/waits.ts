/**
 * What an environment waits for, in a few words, for the fleet's cells and counts: from the
 * gateway's latest decision (reconciler view), its policy gates (policy-words.ts), and the
 * stored records when the replica has not evaluated the Pipeline yet. The words never count
 * time from now, so they stay true until the view changes. Pure.
 */
import type { EnvironmentDecision } from '../evaluate/decisions.js';
import type { PolicyView } from '../evaluate/policy-view.js';
import type { EnvironmentStatus } from '../pipeline/pipeline-resource.js';
import { clip } from '../text/text.js';
import { policyWords } from './policy-words.js';

/** How a cell's words read: fine, moving, waiting on someone or something, or broken. */
export type Tone = 'ok' | 'info' | 'wait' | 'fail' | 'muted';

/** What waits, as the fleet shows it, and which counts it falls in. */
export interface WaitState {
  text: string;
  tone: Tone;
  /** Waits for approvals (count-waiting). */
  waiting: boolean;
  /** A promotion failed for good (count-failed). */
  failed: boolean;
}

/** Reasons that mean a policy gate holds: their words come from the policy view. */
const POLICY_REASONS = new Set([
  'Halted',
  'InDenyWindow',
  'OutsidePromotionWindow',
  'InvalidPromotionWindow',
  'Soaking',
  'SoakInvalid',
  'CheckFailed',
  'CheckUnknown',
  'CheckPending',
]);

const state = (text: string, tone: Tone, flags: Partial<WaitState> = {}): WaitState => ({
  text,
  tone,
  waiting: false,
  failed: false,
  ...flags,
});

const short = (text: string | undefined, max = 24): string => clip(text ?? '', max) || '?';

/** The words of one environment's decision (`policy`: its gates, when it has any). */
export function decisionState(
  decision: EnvironmentDecision,
  policy: PolicyView | undefined,
  stored: EnvironmentStatus | undefined,
): WaitState {
  const rev = short(decision.revision);
  switch (decision.outcome) {
    case 'Source':
      return decision.reason === 'Ready'
        ? state('source', 'ok')
        : state(`source: ${clip(decision.message, 80)}`, 'fail');
    case 'UpToDate':
      return decision.reason === 'Deployed'
        ? state('up to date', 'ok')
        : state(`rolling out ${rev}`, 'info');
    case 'Promote':
      return state(`promoting ${rev}`, 'info');
    case 'RollBack':
      return state(`rolling back to ${rev} from ${short(decision.rollback?.from)}`, 'fail');
    case 'AlreadyPromoted':
      return promotedState(decision, stored);
    case 'WaitingApproval':
      return state(
        `waiting for approval of ${rev} (${decision.gate?.summary ?? 'approvals'})`,
        'wait',
        {
          waiting: true,
        },
      );
    case 'Rejected':
      return state(`${rev} rejected by ${short(decision.gate?.rejectedBy, 64)}`, 'fail');
    case 'Failed':
      return state(`promotion of ${rev} failed: ${clip(decision.message, 80)}`, 'fail', {
        failed: true,
      });
    case 'Unknown':
      return state(`cannot decide: ${clip(decision.message, 80)}`, 'fail');
    case 'Drifted':
      return state(
        `drifted: runs ${short(decision.drift?.running.join(', '), 48)}, promoted ${rev}`,
        'fail',
      );
    case 'Waiting':
      return waitingState(decision, policy, stored);
  }
}

function promotedState(
  decision: EnvironmentDecision,
  stored: EnvironmentStatus | undefined,
): WaitState {
  const rev = short(decision.revision);
  if (stored?.promotion?.pullRequest?.state === 'open')
    return state(`pull request open for ${rev}`, 'wait');
  return decision.reason === 'PromotionInProgress'
    ? state(`promoting ${rev}`, 'info')
    : state(`promoted ${rev}, rolling out`, 'info');
}

function waitingState(
  decision: EnvironmentDecision,
  policy: PolicyView | undefined,
  stored: EnvironmentStatus | undefined,
): WaitState {
  const rev = short(decision.revision);
  if (decision.reason === 'PullRequestOpen' || stored?.promotion?.pullRequest?.state === 'open')
    return state(`pull request open for ${rev}`, 'wait');
  if (decision.reason === 'RetryBackoff') return state(`retrying ${rev} after a failure`, 'fail');
  if (POLICY_REASONS.has(decision.reason)) {
    const line = policyWords(policy);
    return state(line === '' ? clip(decision.message, 100) : clip(line, 100), 'wait');
  }
  if (decision.reason === 'UpstreamNotReady') return state('upstream not ready', 'muted');
  return state(`waiting: ${clip(decision.message, 80)}`, 'muted');
}

/** The words from the stored records alone, before this replica has evaluated the Pipeline. */
export function storedState(stored: EnvironmentStatus | undefined): WaitState {
  if (stored === undefined) return state('not checked yet', 'muted');
  const waiting = stored.waitingApproval;
  if (waiting !== undefined)
    return state(`waiting for approval of ${short(waiting.revision)}`, 'wait', { waiting: true });
  const record = stored.promotion;
  if (record === undefined) return state('', 'muted');
  if (record.pullRequest?.state === 'open')
    return state(`pull request open for ${short(record.revision)}`, 'wait');
  if (record.phase === 'Failed' && record.retryable === false)
    return state(`promotion of ${short(record.revision)} failed`, 'fail', { failed: true });
  if (record.phase === 'Claimed') return state(`promoting ${short(record.revision)}`, 'info');
  return state('', 'muted');
}
