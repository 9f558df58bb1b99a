/**
 * The promotion-window gate as a decision table, on plain arithmetic schedules (each window
 * opens every `period` from `offset` for `duration`): which decision, reason, message and
 * retryAt each arrangement of windows gives. The real recurrence libraries are exercised in
 * test/unit/schedule and in windows.property.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { EvaluationInput } from '../../../src/evaluate/decisions.js';
import type {
  CompiledWindows,
  FleetWindow,
  PromotionWindow,
  WindowSchedule,
  WindowType,
  WindowsInput,
} from '../../../src/windows/promotion-window.js';
import type {
  PromotionSpec,
  PromotionWindowSpec,
} from '../../../src/pipeline/pipeline-resource.js';
import {
  at,
  authorization,
  build,
  decisionFor,
  deepFreeze,
  healthy,
  MINUTE,
  NOW,
  record,
} from '../../support/evaluate-builders.js';

const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Occurrences at offset + k * period (k any integer), each lasting `duration`. */
function periodic(offset: number, period: number, duration: number): WindowSchedule {
  return {
    nextStart: (from) => offset + Math.ceil((from - offset) / period) * period,
    endOf: (start) => start + duration,
    maxDurationMs: duration,
    local: (ms) => `L(${new Date(ms).toISOString()})`,
  };
}

/** A compiled window; `schedule` defaults to one hour every day from NOW - 30 min (in force). */
function win(
  name: string,
  type: WindowType,
  fields: Partial<PromotionWindow> = {},
): PromotionWindow {
  return {
    name,
    type,
    level: 'environment',
    authorizationsPassFreeze: false,
    schedule: periodic(NOW - 30 * MINUTE, DAY, HOUR),
    ...fields,
  };
}

/** The spec entry a compiled window stands for (its fields do not matter to the gate). */
function specOf(w: PromotionWindow): PromotionWindowSpec {
  return { name: w.name, type: w.type, cron: '0 0 * * *', timeZone: 'UTC', duration: '1h' };
}

const strategy = { notification: {} };

/**
 * dev -> staging -> prod, dev and staging healthy at 2.0.0, prod at 1.0.0: prod would take
 * 2.0.0. `prod`: prod's windows; `pipeline`: spec.promotion's; `fleet`: the operator's.
 */
function input(
  windows: {
    prod?: PromotionWindow[];
    pipeline?: PromotionWindow[];
    fleet?: FleetWindow[];
    compiled?: Partial<WindowsInput>;
  },
  extra: { now?: number; promotion?: Omit<PromotionSpec, 'strategy' | 'windows'> } = {},
): EvaluationInput {
  const prodPromotion: PromotionSpec | undefined =
    windows.prod === undefined && extra.promotion === undefined
      ? undefined
      : {
          strategy,
          ...extra.promotion,
          ...(windows.prod === undefined ? {} : { windows: windows.prod.map(specOf) }),
        };
  const built = build(
    [
      { name: 'dev', statuses: [healthy('2.0.0')] },
      { name: 'staging', statuses: [healthy('2.0.0')] },
      {
        name: 'prod',
        statuses: [healthy('1.0.0')],
        ...(prodPromotion === undefined ? {} : { promotion: prodPromotion }),
      },
    ],
    {
      ...(windows.pipeline === undefined
        ? {}
        : { promotion: { strategy, windows: windows.pipeline.map(specOf) } }),
      ...(extra.now === undefined ? {} : { now: extra.now }),
    },
  );
  const ok = (list: PromotionWindow[]): CompiledWindows => ({ ok: true, windows: list });
  built.windows = {
    ...(windows.fleet === undefined ? {} : { fleet: windows.fleet }),
    ...(windows.pipeline === undefined ? {} : { pipeline: ok(windows.pipeline) }),
    ...(windows.prod === undefined ? {} : { environments: { prod: ok(windows.prod) } }),
    ...windows.compiled,
  };
  return deepFreeze(built);
}

const utc = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const READY = 'staging is healthy at 2.0.0 on 1 target';

describe('promotion windows: decisions', () => {
  it('no window: prod promotes once upstream is ready', () => {
    expect(decisionFor(input({}), 'prod')).toMatchObject({
      outcome: 'Promote',
      reason: 'UpstreamReady',
    });
  });

  it('inside a deny window: Waiting InDenyWindow until its end, named in local time and UTC', () => {
    const end = NOW + 30 * MINUTE;
    expect(decisionFor(input({ prod: [win('freeze', 'Deny')] }), 'prod')).toEqual({
      environment: 'prod',
      outcome: 'Waiting',
      revision: '2.0.0',
      reason: 'InDenyWindow',
      message: `${READY}; prod waits: inside deny window "freeze" (environment); next opening L(${new Date(end).toISOString()}) (${utc(end)})`,
      retryAt: end,
    });
  });

  it('holds a retry after a failed attempt inside a deny window too', () => {
    const failed = record({
      revision: '2.0.0',
      phase: 'Failed',
      succeeded: false,
      attempt: 1,
      lastAttemptedTime: new Date(NOW - 2 * HOUR).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    });
    const outside = { ...input({}), records: { prod: failed } };
    expect(decisionFor(outside, 'prod')).toMatchObject({ outcome: 'Promote', attempt: 2 });
    const inside = { ...input({ prod: [win('freeze', 'Deny')] }), records: { prod: failed } };
    expect(decisionFor(inside, 'prod')).toMatchObject({
      outcome: 'Waiting',
      reason: 'InDenyWindow',
    });
  });

  it('a deny window not in force lets prod promote', () => {
    const later = win('freeze', 'Deny', { schedule: periodic(NOW + HOUR, DAY, HOUR) });
    expect(decisionFor(input({ prod: [later] }), 'prod').outcome).toBe('Promote');
  });

  it("a deny window's end is open: promotions run at that very instant", () => {
    const now = NOW + 30 * MINUTE;
    expect(decisionFor(input({ prod: [win('freeze', 'Deny')] }, { now }), 'prod').outcome).toBe(
      'Promote',
    );
  });

  it('outside every allow window: Waiting OutsidePromotionWindow until the next start', () => {
    const hours = win('hours', 'Allow', { schedule: periodic(NOW + 2 * HOUR, DAY, 8 * HOUR) });
    expect(decisionFor(input({ prod: [hours] }), 'prod')).toMatchObject({
      outcome: 'Waiting',
      reason: 'OutsidePromotionWindow',
      message: `${READY}; prod waits: outside allow window "hours" (environment); next opening L(${new Date(NOW + 2 * HOUR).toISOString()}) (${utc(NOW + 2 * HOUR)})`,
      retryAt: NOW + 2 * HOUR,
    });
  });

  it('inside any allow window of the level: promotes', () => {
    const other = win('late', 'Allow', { schedule: periodic(NOW + 2 * HOUR, DAY, HOUR) });
    const now = win('now', 'Allow');
    expect(decisionFor(input({ prod: [other, now] }), 'prod').outcome).toBe('Promote');
  });

  it('a deny window inside an allow window: waits for the deny to end if the allow still holds', () => {
    const hours = win('hours', 'Allow', { schedule: periodic(NOW - HOUR, DAY, 8 * HOUR) });
    const freeze = win('lunch', 'Deny');
    expect(decisionFor(input({ prod: [hours, freeze] }), 'prod')).toMatchObject({
      reason: 'InDenyWindow',
      retryAt: NOW + 30 * MINUTE,
    });
  });

  it('a deny window running past the allow window: the next allow start after it', () => {
    const hours = win('hours', 'Allow', { schedule: periodic(NOW - HOUR, DAY, 2 * HOUR) });
    const freeze = win('long', 'Deny', { schedule: periodic(NOW - 30 * MINUTE, DAY, 2 * HOUR) });
    expect(decisionFor(input({ prod: [hours, freeze] }), 'prod')).toMatchObject({
      reason: 'InDenyWindow',
      retryAt: NOW - HOUR + DAY,
    });
    // A deny window that always covers the allow window: the search gives up at a point it
    // reached, no opening before it, and looks again from there.
    const always = win('always', 'Deny', { schedule: periodic(NOW - HOUR, DAY, 3 * HOUR) });
    const shut = input({ prod: [hours, always] });
    const d = decisionFor(shut, 'prod');
    expect(d.message).toContain('; no opening before ');
    expect(d.retryAt).toBeGreaterThan(NOW + 10 * DAY);
    expect(decisionFor({ ...shut, now: d.retryAt! }, 'prod').outcome).toBe('Waiting');
  });

  it('deny occurrences that overlap without end: the search stops at a point and says so', () => {
    const a = win('a', 'Deny', { schedule: periodic(NOW - 10 * MINUTE, 20 * MINUTE, HOUR) });
    const d = decisionFor(input({ prod: [a] }), 'prod');
    // 48 jumps, each to the end of the latest occurrence in force: NOW + 50 min, then 60 more.
    const reached = NOW + 50 * MINUTE + 47 * HOUR;
    expect(d).toMatchObject({
      reason: 'InDenyWindow',
      message: `${READY}; prod waits: inside deny window "a" (environment); no opening before L(${new Date(reached).toISOString()}) (${utc(reached)}), when it looks again`,
      retryAt: reached,
    });
  });
});

describe('promotion windows: where they are declared', () => {
  const closed = (level: PromotionWindow['level']) =>
    win(`${level}-hours`, 'Allow', { level, schedule: periodic(NOW + HOUR, DAY, HOUR) });
  /** In force now, until NOW + 90 min. */
  const open = (level: PromotionWindow['level']) =>
    win(`${level}-now`, 'Allow', { level, schedule: periodic(NOW - 30 * MINUTE, DAY, 2 * HOUR) });
  const fleet = (w: PromotionWindow, environments: string[] = []): FleetWindow => ({
    ...w,
    environments,
  });

  it("a Pipeline's windows apply to every environment but the source", () => {
    const d = input({ pipeline: [win('freeze', 'Deny', { level: 'pipeline' })] });
    expect(decisionFor(d, 'prod')).toMatchObject({ reason: 'InDenyWindow' });
    expect(decisionFor(d, 'staging').outcome).toBe('UpToDate');
    expect(decisionFor(d, 'dev').outcome).toBe('Source');
  });

  it("the operator's windows apply to the environments they name", () => {
    const freeze = win('freeze', 'Deny', { level: 'fleet' });
    expect(decisionFor(input({ fleet: [fleet(freeze, ['prod'])] }), 'prod').reason).toBe(
      'InDenyWindow',
    );
    expect(decisionFor(input({ fleet: [fleet(freeze, ['staging'])] }), 'prod').outcome).toBe(
      'Promote',
    );
    expect(decisionFor(input({ fleet: [fleet(freeze)] }), 'prod').reason).toBe('InDenyWindow');
  });

  it("an environment's allow window cannot widen the operator's: each level must allow", () => {
    const d = input({ fleet: [fleet(closed('fleet'))], prod: [open('environment')] });
    expect(decisionFor(d, 'prod')).toMatchObject({
      reason: 'OutsidePromotionWindow',
      message: expect.stringContaining('outside allow window "fleet-hours" (fleet)') as string,
      retryAt: NOW + HOUR,
    });
    const both = input({ fleet: [fleet(open('fleet'))], prod: [open('environment')] });
    expect(decisionFor(both, 'prod').outcome).toBe('Promote');
  });

  it('levels whose allow windows open at different times: the first instant all allow', () => {
    const fleetHours = win('f', 'Allow', {
      level: 'fleet',
      schedule: periodic(NOW + HOUR, DAY, 4 * HOUR),
    });
    const prodHours = win('p', 'Allow', { schedule: periodic(NOW + 2 * HOUR, DAY, 4 * HOUR) });
    expect(
      decisionFor(input({ fleet: [fleet(fleetHours)], prod: [prodHours] }), 'prod'),
    ).toMatchObject({
      reason: 'OutsidePromotionWindow',
      retryAt: NOW + 2 * HOUR,
    });
  });
});

describe('promotion windows: rules that cannot be followed decide nothing', () => {
  it('a window that did not compile holds prod and names the problem', () => {
    const d = input({
      prod: [win('freeze', 'Deny')],
      compiled: {
        environments: {
          prod: {
            ok: false,
            problem:
              'spec.environments[2].promotion.windows[0] ("freeze"): rrule: RRULE needs FREQ',
          },
        },
      },
    });
    expect(decisionFor(d, 'prod')).toEqual({
      environment: 'prod',
      outcome: 'Waiting',
      revision: '2.0.0',
      reason: 'InvalidPromotionWindow',
      message: `${READY}; prod decides nothing until its promotion windows are fixed: spec.environments[2].promotion.windows[0] ("freeze"): rrule: RRULE needs FREQ`,
    });
  });

  it('windows in the spec that nobody compiled hold prod (never ignored)', () => {
    const d = input({ prod: [win('freeze', 'Deny')], compiled: { environments: {} } });
    expect(decisionFor(d, 'prod')).toMatchObject({
      reason: 'InvalidPromotionWindow',
      message: expect.stringContaining("prod's promotion.windows were not compiled") as string,
    });
    const none = input({ pipeline: [win('freeze', 'Deny')], compiled: { pipeline: undefined } });
    expect(decisionFor(none, 'prod').reason).toBe('InvalidPromotionWindow');
  });

  it('a schedule that fails while followed holds prod with its message', () => {
    const broken = win('broken', 'Deny', {
      schedule: {
        ...periodic(NOW, DAY, HOUR),
        nextStart: () => {
          throw new Error('RRULE iteration limit');
        },
      },
    });
    expect(decisionFor(input({ prod: [broken] }), 'prod')).toMatchObject({
      reason: 'InvalidPromotionWindow',
      message: expect.stringContaining(
        'window "broken" (environment): RRULE iteration limit',
      ) as string,
    });
  });

  it('an allow window that never opens again: held, no retryAt', () => {
    const ended = win('ended', 'Allow', {
      schedule: { ...periodic(NOW, DAY, HOUR), nextStart: () => undefined },
    });
    const d = decisionFor(input({ prod: [ended] }), 'prod');
    expect(d).toMatchObject({
      reason: 'OutsidePromotionWindow',
      message: expect.stringContaining(
        'no opening ahead (its allow windows do not occur again)',
      ) as string,
    });
    expect(d.retryAt).toBeUndefined();
  });
});

describe('promotion windows: authorizations and break-glass', () => {
  const gated = { approval: { minApprovals: 1 } };
  const approved = (d: EvaluationInput): EvaluationInput =>
    deepFreeze({ ...d, authorizations: { prod: [authorization('2.0.0')] } });

  it('by default an approved revision waits for the window like any other', () => {
    const d = approved(input({ prod: [win('freeze', 'Deny')] }, { promotion: gated }));
    expect(decisionFor(d, 'prod')).toMatchObject({ outcome: 'Waiting', reason: 'InDenyWindow' });
  });

  it('authorizationsPassFreeze: the approval gate decides, and an approved revision goes', () => {
    const freeze = win('freeze', 'Deny', { authorizationsPassFreeze: true });
    const waiting = input({ prod: [freeze] }, { promotion: gated });
    expect(decisionFor(waiting, 'prod')).toMatchObject({
      outcome: 'WaitingApproval',
      reason: 'ApprovalRequired',
    });
    expect(decisionFor(approved(waiting), 'prod')).toMatchObject({
      outcome: 'Promote',
      reason: 'Approved',
    });
  });

  it('authorizationsPassFreeze needs every holding window to say so', () => {
    const lets = win('lets', 'Deny', { authorizationsPassFreeze: true });
    const strict = win('strict', 'Deny');
    const d = approved(input({ prod: [lets, strict] }, { promotion: gated }));
    expect(decisionFor(d, 'prod')).toMatchObject({ reason: 'InDenyWindow' });
  });

  it('authorizationsPassFreeze without an approval gate: nothing to pass with, held', () => {
    const freeze = win('freeze', 'Deny', { authorizationsPassFreeze: true });
    expect(decisionFor(input({ prod: [freeze] }), 'prod')).toMatchObject({
      reason: 'InDenyWindow',
    });
  });

  it('a met break-glass quorum lets exactly its revision through (break-glass.table.test.ts)', () => {
    const d = input({ prod: [win('freeze', 'Deny')] });
    const policy = { minApprovals: 2, approvers: ['alice', 'bob'], validForSeconds: 3600 };
    const glass = (revision: string) =>
      deepFreeze({
        ...d,
        breakGlass: policy,
        authorizations: {
          prod: ['alice', 'bob'].map((principal) =>
            authorization(revision, { principal, decision: 'break-glass', time: at(-MINUTE) }),
          ),
        },
      });
    expect(decisionFor(glass('2.0.0'), 'prod').outcome).toBe('Promote');
    expect(decisionFor(glass('1.9.0'), 'prod')).toMatchObject({
      reason: 'InDenyWindow',
      message: expect.stringMatching(/; break-glass: 0 of 2$/) as string,
    });
  });
});

describe('promotion windows: what they never change', () => {
  it('an environment that already runs the revision is UpToDate, window or not', () => {
    const d = input({ pipeline: [win('freeze', 'Deny', { level: 'pipeline' })] });
    expect(decisionFor(d, 'staging')).toMatchObject({ outcome: 'UpToDate', reason: 'Deployed' });
  });

  it('names at most three holding windows', () => {
    const many = ['a', 'b', 'c', 'd', 'e'].map((n) => win(n, 'Deny'));
    expect(decisionFor(input({ prod: many }), 'prod').message).toContain(
      'inside deny window "a" (environment), "b" (environment), "c" (environment) and 2 more',
    );
  });
});
