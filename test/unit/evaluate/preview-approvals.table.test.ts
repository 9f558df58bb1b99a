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
const D3 = `sha256:${'3'.repeat(64)}`;
/** A digest learnt after the approvals' time (authorization() records at 10:00). */
const learnt = (digest: string, at = Date.parse('2026-11-21T10:05:00Z')) => ({ digest, at });
const manual = { promotion: { manual: true, strategy: { notification: {} } } };

/** dev at 1.0.1, prod gated at 1.0.0, with these prod approvals and prod's digest of 1.0.1 now. */
function gated(approvals: AuthorizationRecord[], digestNow?: string) {
  return devProd('1.0.1', '1.0.0', {
    ...manual,
    authorizations: { prod: approvals },
    ...(digestNow === undefined
      ? {}
      : { previewDigests: { prod: { '1.0.1': learnt(digestNow) } } }),
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
      gate: {
        approvedBy: [],
        previewChanged: [{ principal: 'alice', digest: D1 }],
        summary: '0 of 1 approval',
      },
    },
  },
  {
    name: 'an approver who approved again, and saw the change move again, is named with the latest digest',
    input: gated(
      [
        authorization('1.0.1', { previewDigest: D1 }),
        authorization('1.0.1', { previewDigest: D2 }),
      ],
      D3,
    ),
    env: 'prod',
    want: {
      outcome: 'WaitingApproval',
      reason: 'PreviewChanged',
      gate: { approvedBy: [], previewChanged: [{ principal: 'alice', digest: D2 }] },
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
    name: 'a digest learnt before the approval was recorded does not judge it (the door saw its own)',
    input: devProd('1.0.1', '1.0.0', {
      ...manual,
      authorizations: { prod: [authorization('1.0.1', { previewDigest: D2 })] },
      previewDigests: { prod: { '1.0.1': learnt(D1, Date.parse('2026-11-21T09:55:00Z')) } },
    }),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'Approved', gate: { approvedBy: ['alice'] } },
  },
  {
    name: 'an approval the stored wait records as stale does not count, whatever this replica knows',
    input: devProd('1.0.1', '1.0.0', {
      ...manual,
      authorizations: { prod: [authorization('1.0.1', { previewDigest: D1 })] },
      staleApprovals: {
        prod: { revision: '1.0.1', approvals: [{ principal: 'alice', digest: D1 }] },
      },
    }),
    env: 'prod',
    want: {
      outcome: 'WaitingApproval',
      reason: 'PreviewChanged',
      gate: { previewChanged: [{ principal: 'alice', digest: D1 }] },
    },
  },
  {
    name: "a stored stale approval of another digest, or of another revision's wait, leaves this one counting",
    input: devProd('1.0.1', '1.0.0', {
      ...manual,
      authorizations: { prod: [authorization('1.0.1', { previewDigest: D2 })] },
      staleApprovals: {
        prod: { revision: '1.0.1', approvals: [{ principal: 'alice', digest: D1 }] },
      },
    }),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'Approved' },
  },
  {
    name: "a digest of another revision's change does not judge this one",
    input: devProd('1.0.1', '1.0.0', {
      ...manual,
      authorizations: { prod: [authorization('1.0.1', { previewDigest: D1 })] },
      previewDigests: { prod: { '1.0.2': learnt(D2) } },
    }),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'Approved' },
  },
];

describe('approvals bound to a preview digest', () => {
  it.each(cases)('$name', expectCase);

  it('count exactly when their digest is the one learnt after them, or none was (any digests)', () => {
    const digest = fc.stringMatching(/^sha256:[0-9a-f]{64}$/);
    const recorded = Date.parse('2026-11-21T10:00:00Z');
    const offset = fc.integer({ min: -60_000, max: 60_000 });
    fc.assert(
      fc.property(digest, fc.option(digest, { nil: undefined }), offset, (signed, now, dt) => {
        const decision = decisionFor(
          devProd('1.0.1', '1.0.0', {
            ...manual,
            authorizations: { prod: [authorization('1.0.1', { previewDigest: signed })] },
            ...(now === undefined
              ? {}
              : { previewDigests: { prod: { '1.0.1': learnt(now, recorded + dt) } } }),
          }),
          'prod',
        );
        const counts = now === undefined || now === signed || dt <= 0;
        expect(decision.outcome).toBe(counts ? 'Promote' : 'WaitingApproval');
        expect(decision.reason).toBe(counts ? 'Approved' : 'PreviewChanged');
      }),
    );
  });
});
