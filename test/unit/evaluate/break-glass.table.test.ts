/**
 * Break-glass in the evaluator, case by case: which records meet which quorum (the operator's,
 * made stricter by an environment's), that a met quorum passes exactly the halts and windows
 * gates of exactly its environment and revision, what the held message says of it, and when
 * the Pipeline is looked at again because a counted record stops counting.
 */
import { describe, expect, it } from 'vitest';
import { breakGlassQuorum, breakGlassTally } from '../../../src/evaluate/break-glass.js';
import type { EvaluationInput } from '../../../src/evaluate/decisions.js';
import type { PromotionWindow } from '../../../src/windows/promotion-window.js';
import type {
  AuthorizationRecord,
  HaltRecord,
  PromotionSpec,
} from '../../../src/pipeline/pipeline-resource.js';
import {
  MINUTE,
  NOW,
  at,
  authorization,
  build,
  decisionFor,
  deepFreeze,
  expectCase,
  healthy,
  type Case,
} from '../../support/evaluate-builders.js';

const HOUR = 60 * MINUTE;
const POLICY = {
  minApprovals: 2,
  approvers: ['alice', 'bob', 'group:sre', 'ci:e2e'],
  validForSeconds: 3600,
};
const strategy = { notification: {} };

const halt = (fields: Partial<HaltRecord> = {}): HaltRecord => ({
  id: 'h1',
  environment: 'prod',
  principal: 'carol',
  kind: 'human',
  reason: 'incident 42',
  time: at(-2 * HOUR),
  ...fields,
});

/** A break-glass of `revision` by `principal`, recorded `ago` ms before NOW. */
function glass(
  principal: string,
  fields: Partial<AuthorizationRecord> & { ago?: number } = {},
): AuthorizationRecord {
  const { ago = MINUTE, ...rest } = fields;
  return authorization('1.0.1', {
    principal,
    decision: 'break-glass',
    time: at(-ago),
    comment: 'hotfix for incident 42',
    ...rest,
  });
}

/**
 * dev at 1.0.1 -> staging at 1.0.0 -> prod at 1.0.0: staging would promote (and so would prod,
 * were staging ahead). Here prod takes staging's revision, so staging is at 1.0.1 too.
 */
function world(
  fields: {
    halts?: HaltRecord[];
    records?: AuthorizationRecord[];
    policy?: EvaluationInput['breakGlass'] | null;
    prod?: Omit<PromotionSpec, 'strategy'>;
    windows?: PromotionWindow[];
  } = {},
): EvaluationInput {
  const prodPromotion =
    fields.prod === undefined ? {} : { promotion: { strategy, ...fields.prod } };
  const input = build(
    [
      { name: 'dev', statuses: [healthy('1.0.1')] },
      { name: 'staging', statuses: [healthy('1.0.1')] },
      { name: 'prod', statuses: [healthy('1.0.0'), healthy('1.0.0')], ...prodPromotion },
    ],
    { authorizations: { prod: fields.records ?? [] } },
  );
  const policy = fields.policy === undefined ? POLICY : fields.policy;
  return deepFreeze({
    ...input,
    halts: fields.halts ?? [halt()],
    ...(policy === null ? {} : { breakGlass: policy }),
    ...(fields.windows === undefined
      ? {}
      : { windows: { environments: { prod: { ok: true as const, windows: fields.windows } } } }),
  });
}

const READY = 'staging is healthy at 1.0.1 on 1 target';
const HELD = `${READY}; prod waits: prod is halted by carol since ${at(-2 * HOUR)} (incident 42), until it is lifted`;

const cases: Case[] = [
  {
    name: 'break-glass disabled (no policy): two break-glass records change nothing',
    input: world({ policy: null, records: [glass('alice'), glass('bob')] }),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'Halted', message: HELD, retryAt: undefined },
  },
  {
    name: 'break-glass disabled (the policy names nobody)',
    input: world({ policy: { ...POLICY, approvers: [] }, records: [glass('alice'), glass('bob')] }),
    env: 'prod',
    want: { reason: 'Halted', message: HELD },
  },
  {
    name: 'enabled, nothing recorded: the message says a quorum of 2 may break the glass',
    input: world(),
    env: 'prod',
    want: { reason: 'Halted', message: `${HELD}; break-glass: 0 of 2`, retryAt: undefined },
  },
  {
    name: 'one of two: held, named, looked at again when it stops counting',
    input: world({ records: [glass('alice', { ago: 10 * MINUTE })] }),
    env: 'prod',
    want: {
      reason: 'Halted',
      message: `${HELD}; break-glass: 1 of 2 (alice)`,
      retryAt: NOW + 50 * MINUTE,
    },
  },
  {
    name: 'two of two: the halt is passed and prod promotes its revision',
    input: world({ records: [glass('alice'), glass('bob')] }),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'UpstreamReady', revision: '1.0.1', attempt: 1 },
  },
  {
    name: 'the same principal twice counts once',
    input: world({ records: [glass('alice'), glass('alice', { jti: 'other' })] }),
    env: 'prod',
    want: { reason: 'Halted', message: `${HELD}; break-glass: 1 of 2 (alice)` },
  },
  {
    name: 'a break-glass of another revision does not count',
    input: world({ records: [glass('alice'), glass('bob', { revision: '1.0.2' })] }),
    env: 'prod',
    want: { reason: 'Halted' },
  },
  {
    name: 'approvals are not break-glass',
    input: world({
      records: [glass('alice', { decision: 'approve' }), glass('bob', { decision: 'approve' })],
    }),
    env: 'prod',
    want: { reason: 'Halted', message: `${HELD}; break-glass: 0 of 2` },
  },
  {
    name: 'a record exactly validForSeconds old no longer counts',
    input: world({ records: [glass('alice', { ago: HOUR }), glass('bob')] }),
    env: 'prod',
    want: { reason: 'Halted', message: `${HELD}; break-glass: 1 of 2 (bob)` },
  },
  {
    name: 'a record 1 ms younger still counts',
    input: world({ records: [glass('alice', { ago: HOUR - 1 }), glass('bob')] }),
    env: 'prod',
    want: { outcome: 'Promote' },
  },
  {
    name: 'a record whose time cannot be read never counts',
    input: world({ records: [glass('alice', { time: 'soon' }), glass('bob')] }),
    env: 'prod',
    want: { reason: 'Halted' },
  },
  {
    name: 'a principal the list does not name does not count',
    input: world({ records: [glass('mallory'), glass('bob')] }),
    env: 'prod',
    want: { reason: 'Halted', message: `${HELD}; break-glass: 1 of 2 (bob)` },
  },
  {
    name: 'a member of a listed group counts',
    input: world({ records: [glass('oidc:sso#dave', { groups: ['sre'] }), glass('bob')] }),
    env: 'prod',
    want: { outcome: 'Promote' },
  },
  {
    name: 'a CI principal counts only where named',
    input: world({
      records: [glass('ci:e2e', { kind: 'ci' }), glass('ci:deploy', { kind: 'ci' })],
    }),
    env: 'prod',
    want: { reason: 'Halted', message: `${HELD}; break-glass: 1 of 2 (ci:e2e)` },
  },
  {
    name: "an environment's higher count wins",
    input: world({
      prod: { breakGlass: { minApprovals: 3 } },
      records: [glass('alice'), glass('bob')],
    }),
    env: 'prod',
    want: { reason: 'Halted', message: `${HELD}; break-glass: 2 of 3 (alice, bob)` },
  },
  {
    name: "an environment's lower count does not lower the operator's",
    input: world({ prod: { breakGlass: { minApprovals: 1 } }, records: [glass('alice')] }),
    env: 'prod',
    want: { reason: 'Halted', message: `${HELD}; break-glass: 1 of 2 (alice)` },
  },
  {
    name: "an environment's list narrows the operator's: both must allow",
    input: world({
      prod: { breakGlass: { approvers: ['bob', 'carol'] } },
      records: [glass('alice'), glass('bob'), glass('carol')],
    }),
    env: 'prod',
    want: { reason: 'Halted', message: `${HELD}; break-glass: 1 of 2 (bob)` },
  },
  {
    name: 'the halt ends before the record stops counting: retryAt is the halt’s end',
    input: world({
      halts: [halt({ expiresAt: at(5 * MINUTE) })],
      records: [glass('alice')],
    }),
    env: 'prod',
    want: { reason: 'Halted', retryAt: NOW + 5 * MINUTE },
  },
  {
    name: 'a principal’s latest record is the one that counts for how long',
    input: world({ records: [glass('alice', { ago: 50 * MINUTE }), glass('alice', { ago: 0 })] }),
    env: 'prod',
    want: { reason: 'Halted', retryAt: NOW + HOUR },
  },
];

describe('break-glass: the halts gate', () => {
  it.each(cases)('$name', (c) => {
    expectCase(c);
  });

  it('passes only the environment it was recorded for, under a Pipeline-wide halt', () => {
    // staging would take 1.0.1 from dev, prod 1.0.0 from staging; prod's quorum is for 1.0.0.
    const input = world({ halts: [halt({ environment: undefined })] });
    const quorum = [glass('alice'), glass('bob')].map((r) => ({ ...r, revision: '1.0.0' }));
    const both = deepFreeze({
      ...input,
      targets: {
        ...input.targets,
        staging: [healthy('1.0.0')],
        prod: [healthy('0.9.0'), healthy('0.9.0')],
      },
      authorizations: { prod: quorum },
    });
    expect(decisionFor(both, 'staging')).toMatchObject({ outcome: 'Waiting', reason: 'Halted' });
    expect(decisionFor(both, 'prod')).toMatchObject({ outcome: 'Promote', revision: '1.0.0' });
    // The same records under staging's name do not pass prod, nor staging (another revision).
    const moved = deepFreeze({ ...both, authorizations: { staging: quorum } });
    expect(decisionFor(moved, 'staging').reason).toBe('Halted');
    expect(decisionFor(moved, 'prod').reason).toBe('Halted');
  });

  it('reports the quorum and tally it decided on', () => {
    const env = world().spec.environments[2];
    if (env === undefined) throw new Error('no prod');
    expect(breakGlassQuorum(undefined, env)).toBeUndefined();
    expect(breakGlassQuorum(POLICY, env)).toEqual({
      minApprovals: 2,
      minHumanApprovals: 0,
      approverLists: [POLICY.approvers],
    });
    const tally = breakGlassTally(
      POLICY,
      env,
      [glass('alice', { ago: 10 * MINUTE }), glass('bob', { ago: 20 * MINUTE })],
      '1.0.1',
      NOW,
    );
    expect(tally).toMatchObject({ recordedBy: ['alice', 'bob'], met: true });
    expect(tally?.changesAt).toBe(NOW + 40 * MINUTE);
  });
});

/** A deny window in force from 30 minutes ago for a day. */
const FREEZE: PromotionWindow = {
  name: 'freeze',
  type: 'Deny',
  level: 'environment',
  authorizationsPassFreeze: false,
  schedule: {
    nextStart: (from) => (from <= NOW - 30 * MINUTE ? NOW - 30 * MINUTE : undefined),
    endOf: (start) => start + 24 * HOUR,
    maxDurationMs: 24 * HOUR,
    local: (ms) => new Date(ms).toISOString(),
  },
};
const FREEZE_SPEC = {
  name: 'freeze',
  type: 'Deny' as const,
  cron: '0 0 * * *',
  timeZone: 'UTC',
  duration: '24h',
};
const QUORUM = [glass('alice'), glass('bob')];

describe('break-glass: windows, and what it never passes', () => {
  const frozen = (fields: Parameters<typeof world>[0] = {}) =>
    world({
      halts: [],
      windows: [FREEZE],
      ...fields,
      prod: { windows: [FREEZE_SPEC], ...fields.prod },
    });

  it('a freeze holds and says a break-glass is possible; a met quorum passes it', () => {
    const held = decisionFor(frozen(), 'prod');
    expect(held).toMatchObject({ reason: 'InDenyWindow' });
    expect(held.message).toMatch(/; break-glass: 0 of 2$/);
    expect(held.retryAt).toBe(NOW + 23 * HOUR + 30 * MINUTE);
    expect(decisionFor(frozen({ records: QUORUM }), 'prod')).toMatchObject({
      outcome: 'Promote',
      reason: 'UpstreamReady',
    });
  });

  it('a halt and a freeze at once: one quorum passes both', () => {
    const both = frozen({ halts: [halt()] });
    expect(decisionFor(both, 'prod').reason).toBe('Halted');
    expect(decisionFor(frozen({ halts: [halt()], records: QUORUM }), 'prod').outcome).toBe(
      'Promote',
    );
  });

  it('does not pass a soak', () => {
    const soaking = frozen({ prod: { soak: { duration: '1h' } }, records: QUORUM });
    expect(decisionFor(soaking, 'prod')).toMatchObject({ outcome: 'Waiting', reason: 'Soaking' });
  });

  it('does not pass a failing check', () => {
    const checked = frozen({
      prod: { checks: [{ name: 'e2e', http: { url: 'https://ci.example.com/e2e' } }] },
      records: QUORUM,
    });
    const failed = [
      { index: 0, revision: '1.0.1', state: 'Failed' as const, message: 'red', expiresAt: NOW + 1 },
    ];
    expect(decisionFor({ ...checked, checks: { prod: failed } }, 'prod')).toMatchObject({
      outcome: 'Waiting',
      reason: 'CheckFailed',
    });
  });

  it('does not pass a window whose rule cannot be used', () => {
    const broken = frozen({ records: QUORUM });
    const invalid = deepFreeze({
      ...broken,
      windows: { environments: { prod: { ok: false as const, problem: 'bad rule' } } },
    });
    expect(decisionFor(invalid, 'prod').reason).toBe('InvalidPromotionWindow');
  });

  it('does not satisfy an approval gate by itself, but an allowed approver’s break-glass counts as theirs', () => {
    const others = frozen({ prod: { approval: { approvers: ['carol'] } }, records: QUORUM });
    expect(decisionFor(others, 'prod')).toMatchObject({
      outcome: 'WaitingApproval',
      reason: 'ApprovalRequired',
    });
    const theirs = frozen({ prod: { approval: { approvers: ['alice'] } }, records: QUORUM });
    expect(decisionFor(theirs, 'prod')).toMatchObject({ outcome: 'Promote', reason: 'Approved' });
  });
});
