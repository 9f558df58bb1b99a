import { describe, expect, it } from 'vitest';
import { waitingFor } from '../../../src/approvals/answers.js';
import type { EnvironmentDecision } from '../../../src/evaluate/decisions.js';

const deployed: EnvironmentDecision = {
  environment: 'prod',
  outcome: 'UpToDate',
  revision: '6.6.0',
  reason: 'Deployed',
  message: 'prod runs 6.6.0 on 1 target',
};

// The 409 NotWaiting's detail: why an approval or a CI trigger does not count, and what to do.
describe('waitingFor', () => {
  it('lets an approval count for the revision the gate is deciding on', () => {
    const waiting: EnvironmentDecision = {
      ...deployed,
      outcome: 'WaitingApproval',
      reason: 'ApprovalRequired',
      gate: { required: 1, requiredHuman: 0, approvedBy: [], summary: '0 of 1 approval' },
    };
    expect(waitingFor(waiting, '6.6.0', 'prod')).toBeUndefined();
    expect(waitingFor(waiting, '6.7.0', 'prod')).toBe('prod is waiting for 6.6.0, not 6.7.0');
  });

  it('says to roll a newer revision out upstream first when nothing waits for it', () => {
    expect(waitingFor(deployed, '6.8.0', 'prod')).toBe(
      'prod is not waiting for an approval (Deployed: prod runs 6.6.0 on 1 target); it waits for approvals of a revision once the environment before it runs that revision healthy: roll 6.8.0 out there first, then ask again',
    );
  });

  it('adds nothing when the revision asked for is already past the gate', () => {
    expect(waitingFor(deployed, '6.6.0', 'prod')).toBe(
      'prod is not waiting for an approval (Deployed: prod runs 6.6.0 on 1 target)',
    );
    expect(waitingFor(undefined, '6.6.0', 'qa')).toBe('qa is not in the Pipeline');
  });
});
