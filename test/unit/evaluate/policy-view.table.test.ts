/**
 * The policy view (src/evaluate/policy-view.ts) as a table: what each gate shows of one
 * environment (halts, windows, soak, checks), alone and together, next to the decision the
 * evaluator makes on the same input; and nothing at all for a Pipeline without these fields.
 */
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../../../src/evaluate/decisions.js';
import type { EvaluationInput } from '../../../src/evaluate/decisions.js';
import { POLICY_GATES } from '../../../src/evaluate/policy-gates.js';
import { policyViewsOf, VIEWED_GATES } from '../../../src/evaluate/policy-view.js';
import type { PromotionWindow, WindowSchedule } from '../../../src/windows/promotion-window.js';
import type {
  CheckSpec,
  HaltRecord,
  HealthySince,
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
  healthy,
  unhealthy,
} from '../../support/evaluate-builders.js';

const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const strategy = { notification: {} };

/** Occurrences at offset + k * period, each lasting `duration`; local time is marked L(...). */
function periodic(offset: number, period: number, duration: number): WindowSchedule {
  return {
    nextStart: (from) => offset + Math.ceil((from - offset) / period) * period,
    endOf: (start) => start + duration,
    maxDurationMs: duration,
    local: (ms) => `L(${new Date(ms).toISOString()})`,
  };
}

/** A daily window of one hour starting `offset` from NOW (in force when -1h < offset <= 0). */
function win(name: string, type: 'Allow' | 'Deny', offset: number, pass = false): PromotionWindow {
  return {
    name,
    type,
    level: 'environment',
    authorizationsPassFreeze: pass,
    schedule: periodic(NOW + offset, DAY, HOUR),
  };
}

interface World {
  prod?: Omit<PromotionSpec, 'strategy'>;
  windows?: PromotionWindow[];
  halts?: HaltRecord[];
  /** dev's healthy-since, for a soak. */
  since?: HealthySince;
  checks?: CheckResult[];
  /** dev's targets; healthy at 2.0.0 by default. */
  dev?: ReturnType<typeof healthy>[];
  authorizations?: EvaluationInput['authorizations'];
}

/** dev -> prod: dev healthy at 2.0.0, prod at 1.0.0, so prod would take 2.0.0. */
function world(w: World = {}): EvaluationInput {
  const windows = w.windows ?? [];
  const promotion: PromotionSpec | undefined =
    w.prod === undefined && windows.length === 0
      ? undefined
      : {
          strategy,
          ...w.prod,
          ...(windows.length === 0
            ? {}
            : {
                windows: windows.map((x) => ({
                  name: x.name,
                  type: x.type,
                  cron: '0 0 * * *',
                  timeZone: 'UTC',
                  duration: '1h',
                })),
              }),
        };
  const input = build([
    { name: 'dev', statuses: w.dev ?? [healthy('2.0.0')] },
    { name: 'prod', statuses: [healthy('1.0.0')], ...(promotion ? { promotion } : {}) },
  ]);
  if (windows.length > 0) input.windows = { environments: { prod: { ok: true, windows } } };
  if (w.halts !== undefined) input.halts = w.halts;
  if (w.since !== undefined) input.soak = { dev: w.since };
  if (w.checks !== undefined) input.checks = { prod: w.checks };
  if (w.authorizations !== undefined) input.authorizations = w.authorizations;
  return deepFreeze(input);
}

function halt(fields: Partial<HaltRecord> = {}): HaltRecord {
  return {
    id: 'h1',
    environment: 'prod',
    principal: 'alice',
    kind: 'human',
    reason: 'incident 42',
    time: at(-HOUR),
    expiresAt: at(2 * HOUR),
    ...fields,
  };
}

const E2E: CheckSpec = { name: 'e2e', commitStatus: { contexts: ['ci/e2e'] } };
const HEALTH: CheckSpec = {
  name: 'health',
  http: { url: 'https://user:pa55word@status.example.com/x?token=s3cret' },
};

function result(index: number, state: CheckResult['state'], message: string): CheckResult {
  return { index, revision: '2.0.0', state, message, expiresAt: NOW + MINUTE };
}

const prodView = (input: EvaluationInput) => policyViewsOf(input)?.prod;
const utc = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

describe('the policy view', () => {
  it('is absent for a Pipeline without policy fields, and for an environment without gates', () => {
    expect(policyViewsOf(world())).toBeUndefined();
    expect(policyViewsOf(world({ prod: { approval: { minApprovals: 1 } } }))).toBeUndefined();
    // A halt of the whole Pipeline holds prod; dev, the source, is never promoted.
    const views = policyViewsOf(world({ halts: [halt({ environment: undefined })] }));
    expect(Object.keys(views ?? {})).toEqual(['prod']);
  });

  it('names the gates in the order the evaluator asks them', () => {
    expect(VIEWED_GATES.map(([, gate]) => gate)).toEqual(POLICY_GATES);
    expect(VIEWED_GATES.map(([part]) => part)).toEqual(['halts', 'window', 'soak', 'checks']);
  });

  it('halts: who, why, since and until when; expired and lifted halts are not shown', () => {
    const input = world({
      halts: [
        halt(),
        halt({ id: 'h2', environment: undefined, expiresAt: undefined, reason: 'freeze' }),
        halt({ id: 'old', expiresAt: at(-1) }),
        halt({ id: 'lifted', liftedAt: at(-MINUTE), jti: 'j', statement: 'eyJ.x.y' }),
        halt({ id: 'other', environment: 'dev' }),
      ],
    });
    expect(prodView(input)).toEqual({
      revision: '2.0.0',
      holding: ['halts'],
      halts: [
        {
          id: 'h2',
          principal: 'alice',
          kind: 'human',
          reason: 'freeze',
          since: at(-HOUR),
        },
        {
          id: 'h1',
          environment: 'prod',
          principal: 'alice',
          kind: 'human',
          reason: 'incident 42',
          since: at(-HOUR),
          until: at(2 * HOUR),
        },
      ],
    });
    expect(decisionFor(input, 'prod').reason).toBe('Halted');
  });

  it('a deny window in force: closed, which window, and the next opening in UTC and local time', () => {
    const input = world({ windows: [win('freeze', 'Deny', -30 * MINUTE)] });
    const end = NOW + 30 * MINUTE;
    expect(prodView(input)).toEqual({
      revision: '2.0.0',
      holding: ['window'],
      window: {
        open: false,
        reason: 'InDenyWindow',
        windows: [{ name: 'freeze', type: 'Deny', level: 'environment' }],
        nextOpening: utc(end),
        nextOpeningLocal: `L(${new Date(end).toISOString()})`,
      },
    });
    expect(decisionFor(input, 'prod')).toMatchObject({ reason: 'InDenyWindow', retryAt: end });
  });

  it('outside an allow window: OutsidePromotionWindow, opening at its next start', () => {
    const input = world({ windows: [win('hours', 'Allow', 2 * HOUR)] });
    expect(prodView(input)?.window).toMatchObject({
      open: false,
      reason: 'OutsidePromotionWindow',
      nextOpening: utc(NOW + 2 * HOUR),
    });
  });

  it('inside an allow window: open, holding nothing, closing at its end (or after the next one)', () => {
    expect(prodView(world({ windows: [win('hours', 'Allow', -10 * MINUTE)] }))).toEqual({
      revision: '2.0.0',
      holding: [],
      window: { open: true, closesAt: utc(NOW + 50 * MINUTE) },
    });
    // Two allow windows back to back: it closes when the second ends.
    const chained = world({
      windows: [win('a', 'Allow', -10 * MINUTE), win('b', 'Allow', 50 * MINUTE)],
    });
    expect(prodView(chained)?.window).toEqual({ open: true, closesAt: utc(NOW + 110 * MINUTE) });
    // A deny window ahead closes it first.
    const denied = world({
      windows: [win('a', 'Allow', -10 * MINUTE), win('d', 'Deny', 20 * MINUTE)],
    });
    expect(prodView(denied)?.window).toEqual({ open: true, closesAt: utc(NOW + 20 * MINUTE) });
  });

  it('a window approvals pass: closed, but not holding a gated environment', () => {
    const input = world({
      prod: { approval: { minApprovals: 1 } },
      windows: [win('freeze', 'Deny', -30 * MINUTE, true)],
      authorizations: { prod: [authorization('2.0.0')] },
    });
    expect(prodView(input)).toMatchObject({ holding: [], window: { open: false } });
    expect(decisionFor(input, 'prod')).toMatchObject({ outcome: 'Promote', reason: 'Approved' });
  });

  it('windows that cannot be used: InvalidPromotionWindow and the problem', () => {
    const input = build([
      { name: 'dev', statuses: [healthy('2.0.0')] },
      {
        name: 'prod',
        statuses: [healthy('1.0.0')],
        promotion: {
          strategy,
          windows: [{ name: 'bad', type: 'Deny', cron: 'x', timeZone: 'UTC', duration: '1h' }],
        },
      },
    ]);
    input.windows = { environments: { prod: { ok: false, problem: 'windows[0]: cron: bad' } } };
    expect(prodView(input)).toEqual({
      revision: '2.0.0',
      holding: ['window'],
      window: { open: false, reason: 'InvalidPromotionWindow', problem: 'windows[0]: cron: bad' },
    });
  });

  it('soak: since when, until when and the time left; 0s once over', () => {
    const soaking = world({
      prod: { soak: { duration: '30m' } },
      since: { revision: '2.0.0', time: at(-12 * MINUTE) },
    });
    expect(prodView(soaking)).toEqual({
      revision: '2.0.0',
      holding: ['soak'],
      soak: {
        duration: '30m',
        upstream: 'dev',
        healthySince: at(-12 * MINUTE),
        endsAt: at(18 * MINUTE),
        left: '18m',
      },
    });
    expect(decisionFor(soaking, 'prod').message).toContain('prod waits 18m more');
    const over = world({
      prod: { soak: { duration: '30m' } },
      since: { revision: '2.0.0', time: at(-31 * MINUTE) },
    });
    expect(prodView(over)).toMatchObject({ holding: [], soak: { left: '0s' } });
  });

  it('soak: unknown start counts the whole soak; upstream not ready shows only the soak', () => {
    const unknownStart = world({ prod: { soak: { duration: '1h30m' } } });
    expect(prodView(unknownStart)?.soak).toEqual({
      duration: '1h30m',
      upstream: 'dev',
      left: '1h30m',
    });
    const notReady = world({ prod: { soak: { duration: '30m' } }, dev: [unhealthy('2.0.0')] });
    expect(prodView(notReady)).toEqual({ soak: { duration: '30m', upstream: 'dev' } });
    expect(prodView(world({ prod: { soak: { duration: '0s' } } }))).toBeUndefined();
    expect(prodView(world({ prod: { soak: { duration: '9000h' } } }))).toEqual({
      revision: '2.0.0',
      holding: ['soak'],
      soak: { duration: '9000h', upstream: 'dev', invalid: true },
    });
  });

  it('checks: each result as the decision says it, and no URL, credential or query', () => {
    const input = world({
      prod: { checks: [E2E, HEALTH] },
      checks: [result(0, 'Pending', 'ci/e2e pending at v2.0.0'), result(1, 'Passed', 'HTTP 200')],
    });
    const view = prodView(input);
    expect(view).toEqual({
      revision: '2.0.0',
      holding: ['checks'],
      checks: [
        {
          name: 'e2e',
          kind: 'commitStatus',
          result: 'Pending',
          detail: 'pending: ci/e2e pending at v2.0.0',
          expiresAt: utc(NOW + MINUTE),
        },
        {
          name: 'health',
          kind: 'http',
          result: 'Passed',
          detail: 'passed',
          expiresAt: utc(NOW + MINUTE),
        },
      ],
    });
    expect(decisionFor(input, 'prod').message).toContain(
      'e2e pending: ci/e2e pending at v2.0.0; health passed',
    );
    expect(JSON.stringify(view)).not.toMatch(/pa55word|s3cret|status\.example\.com/);
  });

  it('checks: not read yet is Unknown, a stale pass is Pending; no revision, no results', () => {
    const input = world({
      prod: { checks: [E2E, HEALTH] },
      checks: [{ ...result(1, 'Passed', ''), expiresAt: NOW }],
    });
    expect(prodView(input)?.checks?.map((c) => [c.result, c.detail])).toEqual([
      ['Unknown', 'not checked yet'],
      ['Pending', 'passed, being checked again'],
    ]);
    const notReady = world({ prod: { checks: [E2E] }, dev: [unhealthy('2.0.0')] });
    expect(prodView(notReady)).toEqual({ checks: [{ name: 'e2e', kind: 'commitStatus' }] });
  });

  it('every gate at once: all hold, the decision names the first (the halt)', () => {
    const input = world({
      prod: { soak: { duration: '30m' }, checks: [E2E] },
      windows: [win('freeze', 'Deny', -30 * MINUTE)],
      halts: [halt()],
      since: { revision: '2.0.0', time: at(-MINUTE) },
    });
    const view = prodView(input);
    expect(view?.holding).toEqual(['halts', 'window', 'soak', 'checks']);
    expect(Object.keys(view ?? {})).toEqual([
      'revision',
      'holding',
      'halts',
      'window',
      'soak',
      'checks',
    ]);
    expect(decisionFor(input, 'prod').reason).toBe('Halted');
  });
});
