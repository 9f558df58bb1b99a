/**
 * Approvals bound to a preview digest, table and properties: one counts while the change's
 * digest now is its own (or not known), never once it differs; one without a digest keeps
 * today's meaning; a rejection stands whatever its digest.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AuthorizationRecord } from '../../../src/pipeline/pipeline-resource.js';
import {
  authorization,
  decisionFor,
  devProd,
  expectCase,
  type Case,
} from '../../support/evaluate-builders.js';

const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;
const manual = { promotion: { manual: true, strategy: { notification: {} } } };

/** dev at 1.0.1, prod gated at 1.0.0, with these prod approvals and prod's digest of 1.0.1 now. */
function gated(approvals: AuthorizationRecord[], digestNow?: string) {
  return devProd('1.0.1', '1.0.0', {
    ...manual,
    authorizations: { prod: approvals },
    ...(digestNow === undefined ? {} : { previewDigests: { prod: { '1.0.1': digestNow } } }),
  });
}

const cases: Case[] = [
  {
    name: 'an approval bound to the digest of the change now counts',
    input: gated([authorization('1.0.1', { previewDigest: D1 })], D1),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'Approved', gate: { approvedBy: ['alice'] } },
  },
  {
    name: 'an approval bound to another digest does not count, and says why',
    input: gated([authorization('1.0.1', { previewDigest: D1 })], D2),
    env: 'prod',
    want: {
      outcome: 'WaitingApproval',
      reason: 'PreviewChanged',
      gate: { approvedBy: [], previewChanged: ['alice'], summary: '0 of 1 approval' },
    },
  },
  {
    name: 'an approval bound to a digest counts while the change now is not known',
    input: gated([authorization('1.0.1', { previewDigest: D1 })]),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'Approved' },
  },
  {
    name: 'an approval without a digest keeps its meaning when the change moved',
    input: gated([authorization('1.0.1')], D2),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'Approved', gate: { approvedBy: ['alice'] } },
  },
  {
    name: "another approver's current approval counts beside a stale one",
    input: gated(
      [
        authorization('1.0.1', { previewDigest: D1 }),
        authorization('1.0.1', { principal: 'bob', previewDigest: D2 }),
      ],
      D2,
    ),
    env: 'prod',
    want: { outcome: 'Promote', gate: { approvedBy: ['bob'] } },
  },
  {
    name: 'an approver who approved again over the change now is not reported stale',
    input: gated(
      [
        authorization('1.0.1', { previewDigest: D1 }),
        authorization('1.0.1', { previewDigest: D2 }),
      ],
      D2,
    ),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'Approved', gate: { approvedBy: ['alice'] } },
  },
  {
    name: 'a rejection bound to an old digest still rejects',
    input: gated([authorization('1.0.1', { decision: 'reject', previewDigest: D1 })], D2),
    env: 'prod',
    want: { outcome: 'Rejected', reason: 'ApprovalRejected' },
  },
  {
    name: "a digest of another revision's change does not judge this one",
    input: devProd('1.0.1', '1.0.0', {
      ...manual,
      authorizations: { prod: [authorization('1.0.1', { previewDigest: D1 })] },
      previewDigests: { prod: { '1.0.2': D2 } },
    }),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'Approved' },
  },
];

describe('approvals bound to a preview digest', () => {
  it.each(cases)('$name', expectCase);

  it('count exactly when their digest is the one now (any digests)', () => {
    const digest = fc.stringMatching(/^sha256:[0-9a-f]{64}$/);
    fc.assert(
      fc.property(digest, fc.option(digest, { nil: undefined }), (signed, now) => {
        const decision = decisionFor(
          gated([authorization('1.0.1', { previewDigest: signed })], now),
          'prod',
        );
        const counts = now === undefined || now === signed;
        expect(decision.outcome).toBe(counts ? 'Promote' : 'WaitingApproval');
        expect(decision.reason).toBe(counts ? 'Approved' : 'PreviewChanged');
      }),
    );
  });
});
