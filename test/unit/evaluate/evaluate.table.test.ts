import { describe, it } from 'vitest';
import {
  authorization,
  build,
  devProd,
  expectCase,
  healthy,
  record,
  target,
  unhealthy,
  unknown,
  type Case,
} from '../../support/evaluate-builders.js';

const source: Case[] = [
  {
    name: 'all targets healthy at one revision',
    input: devProd('1.0.0', '0.9.0'),
    env: 'dev',
    want: {
      outcome: 'Source',
      reason: 'Ready',
      revision: '1.0.0',
      message: 'dev is healthy at 1.0.0 on all 2 targets',
    },
  },
  {
    name: 'one target unhealthy',
    input: build([{ name: 'dev', statuses: [healthy('1.0.0'), unhealthy('1.0.0')] }]),
    env: 'dev',
    want: { outcome: 'Source', reason: 'NotReady', revision: undefined },
  },
  {
    name: 'one target unknown',
    input: build([{ name: 'dev', statuses: [healthy('1.0.0'), unknown()] }]),
    env: 'dev',
    want: { outcome: 'Source', reason: 'TargetUnknown', revision: undefined },
  },
  {
    name: 'targets at different HelmRelease chart versions',
    input: build([
      { name: 'dev', statuses: [healthy('6.6.1+0cc9a8446c95'), healthy('6.6.1+cdd538a0167e')] },
    ]),
    env: 'dev',
    want: { outcome: 'Source', reason: 'RevisionMismatch', revision: undefined },
  },
  {
    name: 'healthy without a revision',
    input: build([{ name: 'dev', statuses: [target('Healthy')] }]),
    env: 'dev',
    want: { outcome: 'Source', reason: 'NoRevision', revision: undefined },
  },
  {
    name: 'no targets in the spec',
    input: build([{ name: 'dev', statuses: [] }]),
    env: 'dev',
    want: { outcome: 'Source', reason: 'NoTargets' },
  },
  {
    name: 'fewer statuses than spec targets: the missing one is Unknown',
    input: build([{ name: 'dev', statuses: [healthy('1.0.0')], specTargets: 2 }]),
    env: 'dev',
    want: { outcome: 'Source', reason: 'TargetUnknown' },
  },
  {
    name: 'no statuses at all for the environment',
    input: build([{ name: 'dev', statuses: undefined, specTargets: 1 }]),
    env: 'dev',
    want: { outcome: 'Source', reason: 'TargetUnknown' },
  },
];

const upstream: Case[] = [
  {
    name: 'source has an Unknown target',
    input: build([
      { name: 'dev', statuses: [healthy('1.0.0'), unknown('Forbidden')] },
      { name: 'prod', statuses: [healthy('0.9.0')] },
    ]),
    env: 'prod',
    want: { outcome: 'Unknown', reason: 'UpstreamUnknown', revision: undefined },
  },
  {
    name: 'Unknown two environments up blocks even a healthy staging',
    input: build([
      { name: 'dev', statuses: [unknown()] },
      { name: 'staging', statuses: [healthy('1.0.0')] },
      { name: 'prod', statuses: [healthy('0.9.0')] },
    ]),
    env: 'prod',
    want: { outcome: 'Unknown', reason: 'UpstreamUnknown' },
  },
  {
    name: 'own target Unknown',
    input: build([
      { name: 'dev', statuses: [healthy('1.0.0')] },
      { name: 'prod', statuses: [healthy('0.9.0'), unknown('NotFound')] },
    ]),
    env: 'prod',
    want: { outcome: 'Unknown', reason: 'TargetUnknown' },
  },
  {
    name: 'own statuses missing: Unknown, not promoted',
    input: build([
      { name: 'dev', statuses: [healthy('1.0.0')] },
      { name: 'prod', statuses: undefined, specTargets: 2 },
    ]),
    env: 'prod',
    want: { outcome: 'Unknown', reason: 'TargetUnknown' },
  },
  {
    name: 'own environment has no targets',
    input: build([
      { name: 'dev', statuses: [healthy('1.0.0')] },
      { name: 'prod', statuses: [] },
    ]),
    env: 'prod',
    want: { outcome: 'Unknown', reason: 'NoTargets' },
  },
  {
    name: 'source unhealthy',
    input: build([
      {
        name: 'dev',
        statuses: [
          healthy('1.0.0'),
          { ...unhealthy('1.0.0', 'TestFailed'), location: { cluster: 'eu', namespace: 'apps' } },
        ],
      },
      { name: 'prod', statuses: [healthy('0.9.0')] },
    ]),
    env: 'prod',
    want: {
      outcome: 'Waiting',
      reason: 'UpstreamNotReady',
      message: 'dev is not ready: eu/apps (TestFailed); prod waits',
    },
  },
  {
    name: 'source at mixed chart versions',
    input: build([
      { name: 'dev', statuses: [healthy('6.6.1+0cc9a8446c95'), healthy('6.6.1')] },
      { name: 'prod', statuses: [healthy('6.6.0')] },
    ]),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'UpstreamRevisionMismatch' },
  },
  {
    name: 'source healthy with no revision',
    input: build([
      { name: 'dev', statuses: [target('Healthy')] },
      { name: 'prod', statuses: [healthy('0.9.0')] },
    ]),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'UpstreamNoRevision' },
  },
  {
    name: 'source with an empty revision string',
    input: build([
      { name: 'dev', statuses: [healthy('')] },
      { name: 'prod', statuses: [healthy('0.9.0')] },
    ]),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'UpstreamNoRevision' },
  },
  {
    name: 'source lists no targets',
    input: build([
      { name: 'dev', statuses: [] },
      { name: 'prod', statuses: [healthy('0.9.0')] },
    ]),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'UpstreamNoRevision' },
  },
];

const deployed: Case[] = [
  {
    name: 'all targets healthy at the upstream revision',
    input: devProd('1.0.0', '1.0.0'),
    env: 'prod',
    want: {
      outcome: 'UpToDate',
      reason: 'Deployed',
      revision: '1.0.0',
      message: 'prod runs 1.0.0 on all 2 targets',
    },
  },
  {
    name: 'at the upstream revision but one target still unhealthy',
    input: build([
      { name: 'dev', statuses: [healthy('1.0.0')] },
      { name: 'prod', statuses: [healthy('1.0.0'), unhealthy('1.0.0', 'Reconciling')] },
    ]),
    env: 'prod',
    want: { outcome: 'UpToDate', reason: 'RollingOut', revision: '1.0.0' },
  },
  {
    name: 'UpToDate wins over a stale Failed record for the same revision',
    input: devProd('1.0.0', '1.0.0', {
      records: { prod: record({ revision: '1.0.0', phase: 'Failed', attempt: 3 }) },
    }),
    env: 'prod',
    want: { outcome: 'UpToDate', reason: 'Deployed' },
  },
  {
    name: 'upstream healthy at a new revision: promote',
    input: devProd('1.0.1', '1.0.0'),
    env: 'prod',
    want: {
      outcome: 'Promote',
      reason: 'UpstreamReady',
      revision: '1.0.1',
      attempt: 1,
      message: 'dev is healthy at 1.0.1 on all 2 targets; promoting prod',
    },
  },
  {
    name: 'only some targets at the upstream revision: promote',
    input: build([
      { name: 'dev', statuses: [healthy('1.0.1')] },
      { name: 'prod', statuses: [healthy('1.0.1'), healthy('1.0.0')] },
    ]),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'UpstreamReady', revision: '1.0.1', attempt: 1 },
  },
  {
    name: 'build metadata makes a chart version different: promote 6.6.1+0cc9a8446c95 over 6.6.1',
    input: devProd('6.6.1+0cc9a8446c95', '6.6.1'),
    env: 'prod',
    want: { outcome: 'Promote', revision: '6.6.1+0cc9a8446c95' },
  },
  {
    name: 'own targets unhealthy at an older revision: still promote',
    input: build([
      { name: 'dev', statuses: [healthy('1.0.1')] },
      { name: 'prod', statuses: [unhealthy('1.0.0')] },
    ]),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'UpstreamReady', attempt: 1 },
  },
  {
    name: 'a record for another revision does not bear on the new one',
    input: devProd('1.0.1', '1.0.0', {
      records: { prod: record({ revision: '1.0.0', phase: 'Succeeded', succeeded: true }) },
    }),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'UpstreamReady', attempt: 1 },
  },
];

const manual: Case[] = [
  {
    name: 'pipeline-wide manual, no approval',
    input: devProd('1.0.1', '1.0.0', { promotion: { manual: true, strategy: {} } }),
    env: 'prod',
    want: {
      outcome: 'WaitingApproval',
      reason: 'ApprovalRequired',
      revision: '1.0.1',
      attempt: undefined,
    },
  },
  {
    name: 'pipeline-wide manual, approved for the upstream revision',
    input: devProd('1.0.1', '1.0.0', {
      promotion: { manual: true, strategy: {} },
      authorizations: { prod: [authorization('1.0.1')] },
    }),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'Approved', revision: '1.0.1', attempt: 1 },
  },
  {
    name: 'approval for another revision does not count',
    input: devProd('1.0.1', '1.0.0', {
      promotion: { manual: true, strategy: {} },
      authorizations: { prod: [authorization('1.0.0')] },
    }),
    env: 'prod',
    want: { outcome: 'WaitingApproval', reason: 'ApprovalRequired', revision: '1.0.1' },
  },
  {
    name: 'approval for another environment does not count',
    input: devProd('1.0.1', '1.0.0', {
      promotion: { manual: true, strategy: {} },
      authorizations: { dev: [authorization('1.0.1')] },
    }),
    env: 'prod',
    want: { outcome: 'WaitingApproval' },
  },
  {
    name: 'environment-level manual: false overrides pipeline-wide manual',
    input: build(
      [
        { name: 'dev', statuses: [healthy('1.0.1')] },
        { name: 'prod', statuses: [healthy('1.0.0')], promotion: { manual: false, strategy: {} } },
      ],
      { promotion: { manual: true, strategy: {} } },
    ),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'UpstreamReady' },
  },
  {
    name: 'environment-level manual only',
    input: build([
      { name: 'dev', statuses: [healthy('1.0.1')] },
      { name: 'prod', statuses: [healthy('1.0.0')], promotion: { manual: true, strategy: {} } },
    ]),
    env: 'prod',
    want: { outcome: 'WaitingApproval', reason: 'ApprovalRequired' },
  },
  {
    name: 'a record decides before approval: backoff still applies',
    input: devProd('1.0.1', '1.0.0', {
      promotion: { manual: true, strategy: {} },
      authorizations: { prod: [authorization('1.0.1')] },
      records: { prod: record({ revision: '1.0.1', phase: 'Failed', attempt: 1 }) },
    }),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'RetryBackoff' },
  },
  {
    name: 'manual environment already up to date',
    input: devProd('1.0.1', '1.0.1', { promotion: { manual: true, strategy: {} } }),
    env: 'prod',
    want: { outcome: 'UpToDate', reason: 'Deployed' },
  },
];

/** dev -> prod where prod's gate is `approval` (and the notification strategy weave requires). */
function gated(
  approval: { minApprovals?: number; approvers?: string[] },
  extra: Parameters<typeof build>[1] = {},
) {
  return build(
    [
      { name: 'dev', statuses: [healthy('1.0.1')] },
      {
        name: 'prod',
        statuses: [healthy('1.0.0')],
        promotion: { strategy: { notification: {} }, approval },
      },
    ],
    extra,
  );
}

const alice = authorization('1.0.1');
const bob = authorization('1.0.1', { principal: 'bob' });
const ci = authorization('1.0.1', { principal: 'ci:e2e', kind: 'ci' });

const gates: Case[] = [
  {
    name: 'quorum 2: one approval waits, saying what is missing',
    input: gated({ minApprovals: 2 }, { authorizations: { prod: [alice] } }),
    env: 'prod',
    want: {
      outcome: 'WaitingApproval',
      reason: 'ApprovalRequired',
      gate: { required: 2, approvedBy: ['alice'], summary: '1 of 2 approvals' },
    },
  },
  {
    name: 'quorum 2: the same approver twice still waits',
    input: gated({ minApprovals: 2 }, { authorizations: { prod: [alice, alice] } }),
    env: 'prod',
    want: { outcome: 'WaitingApproval', gate: { approvedBy: ['alice'] } },
  },
  {
    name: 'quorum 2: a second distinct approver promotes',
    input: gated({ minApprovals: 2 }, { authorizations: { prod: [alice, bob] } }),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'Approved', attempt: 1, revision: '1.0.1' },
  },
  {
    name: 'an approver not on the list does not count',
    input: gated({ approvers: ['bob'] }, { authorizations: { prod: [alice] } }),
    env: 'prod',
    want: { outcome: 'WaitingApproval' },
  },
  {
    name: 'a group on the list lets its members approve',
    input: gated(
      { approvers: ['group:sre'] },
      { authorizations: { prod: [authorization('1.0.1', { groups: ['dev', 'sre'] })] } },
    ),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'Approved' },
  },
  {
    name: 'a CI principal counts where the gate names it',
    input: gated({ approvers: ['ci:e2e'] }, { authorizations: { prod: [ci] } }),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'Approved' },
  },
  {
    name: 'a CI principal never counts for a gate that names nobody',
    input: devProd('1.0.1', '1.0.0', {
      promotion: { manual: true, strategy: {} },
      authorizations: { prod: [ci] },
    }),
    env: 'prod',
    want: { outcome: 'WaitingApproval' },
  },
  {
    name: 'a rejection by an allowed approver blocks the revision',
    input: gated(
      { minApprovals: 1 },
      { authorizations: { prod: [authorization('1.0.1', { decision: 'reject' }), bob] } },
    ),
    env: 'prod',
    want: {
      outcome: 'Rejected',
      reason: 'ApprovalRejected',
      gate: { rejectedBy: 'alice' },
      attempt: undefined,
    },
  },
  {
    name: 'a rejection of an older revision does not block the newer one',
    input: gated(
      {},
      { authorizations: { prod: [authorization('1.0.0', { decision: 'reject' }), bob] } },
    ),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'Approved' },
  },
  {
    name: 'a rejection by someone the gate does not allow is ignored',
    input: gated(
      { approvers: ['bob'] },
      { authorizations: { prod: [authorization('1.0.1', { decision: 'reject' }), bob] } },
    ),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'Approved' },
  },
  {
    name: 'a floor gates an environment the Pipeline leaves open',
    input: devProd('1.0.1', '1.0.0', { floors: { prod: { minApprovals: 1 } } }),
    env: 'prod',
    want: { outcome: 'WaitingApproval', gate: { required: 1 } },
  },
  {
    name: 'a floor raises the Pipeline quorum, never lowers it',
    input: gated(
      { minApprovals: 1 },
      {
        floors: { prod: { minApprovals: 2 } },
        authorizations: { prod: [alice] },
      },
    ),
    env: 'prod',
    want: { outcome: 'WaitingApproval', gate: { summary: '1 of 2 approvals' } },
  },
  {
    name: 'a floor of one human approval is not met by CI alone',
    input: gated(
      { approvers: ['ci:e2e', 'alice'] },
      { floors: { prod: { minHumanApprovals: 1 } }, authorizations: { prod: [ci] } },
    ),
    env: 'prod',
    want: {
      outcome: 'WaitingApproval',
      gate: { summary: '1 of 1 approval (1 more by a person)' },
    },
  },
  {
    name: "a floor's approver list narrows the Pipeline's",
    input: gated(
      { approvers: ['alice', 'bob'] },
      { floors: { prod: { approvers: ['bob'] } }, authorizations: { prod: [alice] } },
    ),
    env: 'prod',
    want: { outcome: 'WaitingApproval' },
  },
  {
    name: 'a floor for another environment name does not apply',
    input: devProd('1.0.1', '1.0.0', { floors: { production: { minApprovals: 1 } } }),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'UpstreamReady' },
  },
];

describe('evaluate: decision table', () => {
  for (const [group, cases] of Object.entries({ source, upstream, deployed, manual, gates })) {
    describe(group, () => {
      it.each(cases)('$name', expectCase);
    });
  }
});
