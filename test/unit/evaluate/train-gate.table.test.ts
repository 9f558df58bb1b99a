/**
 * The release-train gate in the evaluator: what it holds, with which reason, and what it lets by;
 * and which members share one pull request.
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../../src/evaluate/evaluate.js';
import type { TrainGateInput } from '../../../src/evaluate/train-input.js';
import { sharedPullRequestMembers } from '../../../src/evaluate/train-gate.js';
import { Reasons } from '../../../src/evaluate/reasons.js';
import { decisionFor, devProd, record } from '../../support/evaluate-builders.js';

const DIGEST = `sha256:${'a'.repeat(64)}`;

function gate(overrides: Partial<TrainGateInput> = {}): TrainGateInput {
  return {
    train: 'shop/release',
    member: 'web',
    release: { digest: DIGEST, members: { web: '1.1.0', api: '2.0.0' }, state: 'Promoting' },
    dependsOn: [],
    ...overrides,
  };
}

function prod(trainGate: TrainGateInput | undefined, devRev = '1.1.0', prodRev = '1.0.0') {
  const input = devProd(
    devRev,
    prodRev,
    trainGate === undefined ? {} : { trains: { prod: trainGate } },
  );
  const decision = evaluate(input).decisions[1];
  if (decision === undefined) throw new Error('no prod decision');
  return decision;
}

describe('the train gate', () => {
  const cases: [string, TrainGateInput | undefined, string, string][] = [
    ['no train: promoted as before', undefined, 'Promote', Reasons.UpstreamReady],
    ['the release is Promoting and takes this revision', gate(), 'Promote', Reasons.UpstreamReady],
    ['no release recorded yet', gate({ release: undefined }), 'Waiting', Reasons.TrainCombination],
    [
      'the release takes another revision of this member',
      gate({ release: { digest: DIGEST, members: { web: '1.0.5' }, state: 'Promoting' } }),
      'Waiting',
      Reasons.TrainCombination,
    ],
    [
      'the release does not name this member',
      gate({ member: 'worker' }),
      'Waiting',
      Reasons.TrainCombination,
    ],
    [
      'the release waits for the members gates',
      gate({ release: { digest: DIGEST, members: { web: '1.1.0' }, state: 'Waiting' } }),
      'Waiting',
      Reasons.TrainGates,
    ],
    [
      'the release failed',
      gate({ release: { digest: DIGEST, members: { web: '1.1.0' }, state: 'Failed' } }),
      'Waiting',
      Reasons.TrainGates,
    ],
    [
      'a dependency does not run its release revision yet',
      gate({ dependsOn: [{ name: 'api', running: '1.9.0' }] }),
      'Waiting',
      Reasons.TrainOrder,
    ],
    [
      'a dependency is not healthy at one revision',
      gate({ dependsOn: [{ name: 'api' }] }),
      'Waiting',
      Reasons.TrainOrder,
    ],
    [
      'every dependency runs its release revision',
      gate({ dependsOn: [{ name: 'api', running: '2.0.0' }] }),
      'Promote',
      Reasons.UpstreamReady,
    ],
    [
      'a probe of a Waiting release, a dependency behind: only the combination counts',
      gate({
        probe: true,
        dependsOn: [{ name: 'api' }],
        release: { digest: DIGEST, members: { web: '1.1.0' }, state: 'Waiting' },
      }),
      'Promote',
      Reasons.UpstreamReady,
    ],
    [
      'a probe of another revision',
      gate({
        probe: true,
        release: { digest: DIGEST, members: { web: '1.0.5' }, state: 'Waiting' },
      }),
      'Waiting',
      Reasons.TrainCombination,
    ],
  ];
  it.each(cases)('%s', (_, trainGate, outcome, reason) => {
    const decision = prod(trainGate);
    expect(decision.outcome).toBe(outcome);
    expect(decision.reason).toBe(reason);
    if (outcome === 'Waiting') expect(decision.message).toContain('shop/release');
  });

  it('leaves decisions other than Promote as they are', () => {
    const decision = prod(gate({ release: undefined }), '1.0.0', '1.0.0');
    expect(decision.outcome).toBe('UpToDate');
  });

  it('holds a retry of a failed attempt the release does not take', () => {
    const input = devProd('1.1.0', '1.0.0', {
      records: { prod: record({ revision: '1.1.0', phase: 'Failed', attempt: 1 }) },
      now: Date.parse('2025-01-01T13:00:00Z'),
      trains: {
        prod: gate({ release: { digest: DIGEST, members: { web: '1.2.0' }, state: 'Promoting' } }),
      },
    });
    const decision = evaluate(input).decisions[1];
    expect(decision?.outcome).toBe('Waiting');
    expect(decision?.reason).toBe(Reasons.TrainCombination);
  });
});

describe('the pull request a train member shares', () => {
  it('rides on a Promote the release lets through, with every sharing member and revision', () => {
    const decision = prod(gate({ sharedPullRequest: ['api', 'web'] }));
    expect(decision).toMatchObject({
      outcome: 'Promote',
      sharedPullRequest: {
        train: 'shop/release',
        digest: DIGEST,
        members: { api: '2.0.0', web: '1.1.0' },
      },
    });
  });

  it('is absent when the member shares with nobody, and for a probe', () => {
    expect(prod(gate()).sharedPullRequest).toBeUndefined();
    expect(prod(gate({ sharedPullRequest: ['web'] })).sharedPullRequest).toBeUndefined();
    expect(
      prod(gate({ sharedPullRequest: ['api', 'web'], probe: true })).sharedPullRequest,
    ).toBeUndefined();
  });

  const shared = { train: 'shop/release', digest: DIGEST, members: { api: '2.0.0', web: '1.1.0' } };
  const waitingRelease = {
    digest: DIGEST,
    members: { web: '1.1.0', api: '2.0.0' },
    state: 'Waiting' as const,
  };

  it('rides on a revision the release still holds, for its preview, never as a Promote', () => {
    const ordered = prod(
      gate({ sharedPullRequest: ['api', 'web'], dependsOn: [{ name: 'api', running: '1.9.0' }] }),
    );
    expect(ordered).toMatchObject({ outcome: 'Waiting', reason: Reasons.TrainOrder });
    expect(ordered.sharedPullRequest).toEqual(shared);
    const gates = prod(gate({ sharedPullRequest: ['api', 'web'], release: waitingRelease }));
    expect(gates).toMatchObject({ outcome: 'Waiting', reason: Reasons.TrainGates });
    expect(gates.sharedPullRequest).toEqual(shared);
  });

  it('rides on a revision its own approval gate holds while the release waits', () => {
    const input = devProd('1.1.0', '1.0.0', {
      promotion: { manual: true, strategy: { notification: {} } },
      trains: { prod: gate({ sharedPullRequest: ['api', 'web'], release: waitingRelease }) },
    });
    const decision = decisionFor(input, 'prod');
    expect(decision.outcome).toBe('WaitingApproval');
    expect(decision.sharedPullRequest).toEqual(shared);
  });

  it('is absent for a revision the release does not take, and once it failed or succeeded', () => {
    const other = { ...waitingRelease, members: { web: '1.0.5', api: '2.0.0' } };
    for (const release of [
      other,
      { ...waitingRelease, state: 'Failed' as const },
      { ...waitingRelease, state: 'Succeeded' as const },
    ])
      expect(
        prod(gate({ sharedPullRequest: ['api', 'web'], release })).sharedPullRequest,
      ).toBeUndefined();
  });

  const repo = 'github|https://forge/acme/fleet|main|token';
  const cases: [string, Parameters<typeof sharedPullRequestMembers>[1], string[]][] = [
    [
      'two members on one repository share, a third on another does not',
      [
        { name: 'web', repository: repo },
        { name: 'api', repository: repo },
        { name: 'worker', repository: 'other' },
      ],
      ['api', 'web'],
    ],
    ['alone on its repository: its own', [{ name: 'web', repository: repo }, { name: 'api' }], []],
    [
      'a dependsOn edge between two of them keeps both out',
      [
        { name: 'web', repository: repo, dependsOn: ['api'] },
        { name: 'api', repository: repo },
        { name: 'worker', repository: repo },
      ],
      [],
    ],
    ['not on the pull-request strategy', [{ name: 'web' }, { name: 'api' }], []],
    [
      'a dependsOn edge to a member on another repository does not count',
      [
        { name: 'web', repository: repo, dependsOn: ['worker'] },
        { name: 'api', repository: repo },
        { name: 'worker', repository: 'other' },
      ],
      ['api', 'web'],
    ],
  ];
  it.each(cases)('%s', (_, members, want) => {
    expect(sharedPullRequestMembers('web', members)).toEqual(want);
  });
  it('leaves a member out that dependsOn another on the repository, others still share', () => {
    const members = [
      { name: 'web', repository: repo },
      { name: 'api', repository: repo },
      { name: 'docs', repository: repo, dependsOn: ['worker'] },
      { name: 'worker', repository: repo },
    ];
    expect(sharedPullRequestMembers('web', members)).toEqual(['api', 'web']);
    expect(sharedPullRequestMembers('docs', members)).toEqual([]);
  });
});
