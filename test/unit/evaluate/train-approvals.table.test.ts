/**
 * Approvals of a release train's combination in the evaluator, table and property: one counts for
 * the member's gate only while the train's release into the environment is the combination it was
 * given for (Waiting, as the train's probe asks, or Promoting), never for the same member revision
 * in another combination, nor once the Pipeline is in no train there; approvals given for the
 * Pipeline itself keep their meaning.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TrainGateInput } from '../../../src/evaluate/train-input.js';
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

/** The train's release into prod, as the probe (Waiting, probe) or a member (Promoting) sees it. */
function release(digest: string, state: 'Waiting' | 'Promoting' = 'Waiting'): TrainGateInput {
  return {
    train: 'shop/release',
    member: 'podinfo',
    release: { digest, members: { podinfo: '1.0.1', api: '2.0.0' }, state },
    dependsOn: [],
    ...(state === 'Waiting' ? { probe: true } : {}),
  };
}

/** dev at 1.0.1, prod gated at 1.0.0, with these prod approvals and this train gate. */
function gated(approvals: AuthorizationRecord[], train?: TrainGateInput) {
  return devProd('1.0.1', '1.0.0', {
    ...manual,
    authorizations: { prod: approvals },
    ...(train === undefined ? {} : { trains: { prod: train } }),
  });
}

const cases: Case[] = [
  {
    name: "an approval of the combination counts while it is the train's release",
    input: gated([authorization('1.0.1', { combinationDigest: D1 })], release(D1)),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'Approved', gate: { approvedBy: ['alice'] } },
  },
  {
    name: 'it counts while the release is Promoting',
    input: gated([authorization('1.0.1', { combinationDigest: D1 })], release(D1, 'Promoting')),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'Approved' },
  },
  {
    name: 'it does not count for the same revision in another combination',
    input: gated([authorization('1.0.1', { combinationDigest: D1 })], release(D2)),
    env: 'prod',
    want: {
      outcome: 'WaitingApproval',
      reason: 'ApprovalRequired',
      gate: { approvedBy: [], summary: '0 of 1 approval' },
    },
  },
  {
    name: 'it does not count once the Pipeline is in no train there',
    input: gated([authorization('1.0.1', { combinationDigest: D1 })]),
    env: 'prod',
    want: { outcome: 'WaitingApproval', reason: 'ApprovalRequired' },
  },
  {
    name: "an approval of the Pipeline itself counts whatever the train's release",
    input: gated([authorization('1.0.1')], release(D2)),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'Approved', gate: { approvedBy: ['alice'] } },
  },
  {
    name: "a rejection of another combination does not reject this one's revision",
    input: gated(
      [
        authorization('1.0.1', { decision: 'reject', combinationDigest: D1 }),
        authorization('1.0.1', { principal: 'bob', combinationDigest: D2 }),
      ],
      release(D2),
    ),
    env: 'prod',
    want: { outcome: 'Promote', gate: { approvedBy: ['bob'] } },
  },
  {
    name: 'a rejection of the combination rejects it',
    input: gated(
      [authorization('1.0.1', { decision: 'reject', combinationDigest: D1 })],
      release(D1),
    ),
    env: 'prod',
    want: { outcome: 'Rejected', reason: 'ApprovalRejected' },
  },
];

describe("approvals of a train's combination", () => {
  it.each(cases)('$name', expectCase);

  it("count exactly when their combination is the train's release there (any digests)", () => {
    const digest = fc.stringMatching(/^sha256:[0-9a-f]{64}$/);
    fc.assert(
      fc.property(digest, fc.option(digest, { nil: undefined }), (given, current) => {
        const train = current === undefined ? undefined : release(current);
        const decision = decisionFor(
          gated([authorization('1.0.1', { combinationDigest: given })], train),
          'prod',
        );
        expect(decision.outcome).toBe(given === current ? 'Promote' : 'WaitingApproval');
      }),
    );
  });
});
