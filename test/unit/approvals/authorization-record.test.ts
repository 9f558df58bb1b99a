/**
 * The record an authorization adds carries its time to the millisecond, so what happened within
 * one second keeps its order: a wait that began at .009 is told before an approval at .500.
 */
import { describe, expect, it } from 'vitest';
import { recordOf } from '../../../src/approvals/answers.js';
import { compareFacts, type NotificationFact } from '../../../src/notify/facts.js';

const WAIT_BEGAN = Date.parse('2026-12-07T19:37:02.009Z');

function fact(type: NotificationFact['type'], time: string): NotificationFact {
  return {
    type,
    time,
    at: Date.parse(time),
    pipeline: { namespace: 'apps', name: 'podinfo' },
    environment: 'prod',
    revision: '6.6.0',
    targets: [],
    subject: '',
    reason: type,
    message: '',
    severity: 'info',
  };
}

describe('an authorization record', () => {
  it('keeps milliseconds, and so its order after a wait that began earlier in the same second', () => {
    const record = recordOf(
      { name: 'alice', kind: 'human', groups: [] },
      { revision: '6.6.0', decision: 'approve' },
      WAIT_BEGAN + 491,
    );
    expect(record.time).toBe('2026-12-07T19:37:02.500Z');
    const told = [
      fact('AuthorizationRecorded', record.time),
      fact('WaitingForApproval', new Date(WAIT_BEGAN).toISOString()),
    ].sort(compareFacts);
    expect(told.map((f) => f.type)).toEqual(['WaitingForApproval', 'AuthorizationRecorded']);
  });
});
