/**
 * Halts across Pipelines over the one status writer and a fake store: one halt (one id, the
 * selector recorded) on every matching Pipeline that has the environment and none other;
 * all-or-nothing authorization; the bound on Pipelines per call; a Contended Pipeline reported
 * and the same call again completing it (Duplicate is success); the lift from every holder; a
 * replayed credential halting nothing, not even a Pipeline that matches only since.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../../src/auth/identity.js';
import { FleetHalter } from '../../../src/halts/fleet-halter.js';
import type { HaltCaller } from '../../../src/halts/halt-access.js';
import { haltsByScope } from '../../../src/halts/halt-record.js';
import { parseSelectorText, type LabelSelector } from '../../../src/labels/label-selector.js';
import { createLogger } from '../../../src/log.js';
import type { Pipeline } from '../../../src/pipeline/pipeline-resource.js';
import { FakePipelineWriter, statusWriterOver } from '../../support/fake-pipeline-writer.js';
import { T0, samplePipeline } from '../../support/pipeline-fixtures.js';

const NS = 'flux-system';

function pipeline(name: string, labels: Record<string, string>, namespace = NS): Pipeline {
  const p = samplePipeline();
  p.metadata = { ...p.metadata, name, namespace, labels };
  return p;
}

/** p1, p2 (payments), p3 (search), p4 (payments, no prod), p5 (payments, another namespace). */
function fleet(): Pipeline[] {
  const p4 = pipeline('p4', { team: 'payments' });
  p4.spec.environments = p4.spec.environments.filter((e) => e.name !== 'prod');
  return [
    pipeline('p1', { team: 'payments', tier: 'web' }),
    pipeline('p2', { team: 'payments', tier: 'api' }),
    pipeline('p3', { team: 'search' }),
    p4,
    pipeline('p5', { team: 'payments' }, 'other'),
  ];
}

function person(name: string, jti?: string, groups: string[] = []): HaltCaller {
  const principal: Principal = {
    ...{ name, kind: 'human', groups },
    ...(jti === undefined ? {} : { jti, expiresAt: T0 + 600_000 }),
  };
  return { principal, ciAllowed: () => Promise.resolve(false) };
}

function rig(pipelines: Pipeline[] = fleet(), maxPipelines?: number) {
  const port = new FakePipelineWriter();
  for (const p of pipelines) port.put(p);
  const names = () => pipelines.map((p) => [p.metadata.namespace, p.metadata.name] as const);
  const all = () => names().flatMap(([ns, n]) => port.peek(ns, n) ?? []);
  const outcomes: string[] = [];
  const rechecks: string[] = [];
  const lines: Record<string, unknown>[] = [];
  const halter = new FleetHalter({
    catalog: { heads: all },
    status: statusWriterOver(port, [], { maxAttempts: 2, baseDelayMs: 0, maxDelayMs: 0 }),
    events: port,
    logger: createLogger(
      'info',
      new Writable({
        write(chunk: Buffer, _e, done) {
          lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
          done();
        },
      }),
    ),
    now: () => T0,
    approvers: ['alice', 'bob'],
    floors: {},
    recheck: (id) => rechecks.push(id),
    onOutcome: (kind, outcome) => outcomes.push(`${kind}:${outcome}`),
    ...(maxPipelines === undefined ? {} : { maxPipelines }),
  });
  const haltsOf = (name: string, ns = NS) => port.peek(ns, name)?.status?.halts;
  return { halter, port, all, outcomes, rechecks, haltsOf, lines };
}

function selector(text: string): LabelSelector {
  const parsed = parseSelectorText(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.selector;
}

const PAYMENTS_PROD = {
  namespace: NS,
  selector: selector('team=payments'),
  environment: 'prod',
  reason: 'incident 42',
};

describe('FleetHalter logs', () => {
  it('one info line per halt and per lift across Pipelines, not one per Pipeline', async () => {
    const r = rig();
    const result = await r.halter.halt(person('alice', 'j1'), PAYMENTS_PROD);
    if (!result.ok) throw new Error(result.refusal);
    const lifted = await r.halter.lift(person('bob', 'j2'), result.halt.id);
    expect(lifted.ok).toBe(true);
    expect(r.lines.map((l) => l.msg)).toEqual([
      'halt recorded across Pipelines',
      'halt lifted across Pipelines',
    ]);
    expect(r.lines[0]).toMatchObject({
      haltId: result.halt.id,
      selector: 'team=payments',
      environment: 'prod',
      by: 'alice',
      pipelines: 2,
      outcomes: { halted: 2 },
      skipped: 1,
      complete: true,
    });
    expect(r.lines[1]).toMatchObject({ by: 'bob', pipelines: 2, outcomes: { lifted: 2 } });
    // Each Pipeline still has its Events.
    expect(r.port.events.map((e) => e.reason)).toEqual([
      'PromotionsHalted',
      'PromotionsHalted',
      'HaltLifted',
      'HaltLifted',
    ]);
  });
});

describe('FleetHalter.halt', () => {
  it('records one halt on every matching Pipeline that has the environment, and no other', async () => {
    const r = rig();
    const result = await r.halter.halt(person('alice', 'j1'), PAYMENTS_PROD);
    if (!result.ok) throw new Error(result.refusal);
    expect(result.pipelines).toEqual([
      { pipeline: 'flux-system/p1', outcome: 'halted' },
      { pipeline: 'flux-system/p2', outcome: 'halted' },
    ]);
    expect(result).toMatchObject({ skipped: 1, complete: true });
    expect(result.halt).toMatchObject({
      selector: 'team=payments',
      environment: 'prod',
      jti: 'j1',
    });
    expect(r.haltsOf('p1')).toEqual([result.halt]);
    expect(r.haltsOf('p2')).toEqual([result.halt]);
    for (const untouched of ['p3', 'p4']) expect(r.haltsOf(untouched)).toBeUndefined();
    expect(r.haltsOf('p5', 'other')).toBeUndefined();
    expect(r.port.events.map((e) => e.reason)).toEqual(['PromotionsHalted', 'PromotionsHalted']);
    expect(r.port.events[0]?.annotations).toMatchObject({ selector: 'team=payments' });
    expect(r.rechecks).toEqual(['flux-system/p1', 'flux-system/p2']);
    expect(
      haltsByScope(
        r.all().map((p) => p.status?.halts),
        T0,
      ),
    ).toEqual({ environment: 2, pipeline: 0 });
    expect(r.outcomes).toEqual(['human:halted']);
  });

  it('halts in every namespace when none is named', async () => {
    const r = rig();
    const { namespace: _ns, ...everywhere } = PAYMENTS_PROD;
    const result = await r.halter.halt(person('alice', 'j1'), everywhere);
    expect(result.ok && result.pipelines.map((p) => p.pipeline)).toEqual([
      'flux-system/p1',
      'flux-system/p2',
      'other/p5',
    ]);
  });

  it('refuses the whole call when the caller may not halt one of the Pipelines', async () => {
    const pipelines = fleet();
    const p2 = pipelines[1];
    const prod = p2?.spec.environments.find((e) => e.name === 'prod');
    if (prod === undefined) throw new Error('no prod');
    prod.promotion = { strategy: { notification: {} }, approval: { approvers: ['group:sre'] } };
    const r = rig(pipelines);
    const result = await r.halter.halt(person('alice', 'j1'), PAYMENTS_PROD);
    expect(result).toMatchObject({ ok: false, refusal: 'Forbidden' });
    expect(!result.ok && result.detail).toContain('1 of the 2 Pipelines');
    expect(r.port.writes).toBe(0);
    // A member of sre may halt both.
    expect((await r.halter.halt(person('alice', 'j2', ['sre']), PAYMENTS_PROD)).ok).toBe(true);
  });

  it.each([
    ['no match', { ...PAYMENTS_PROD, selector: selector('team=nobody') }, 'NotFound'],
    ['no match with that environment', { ...PAYMENTS_PROD, environment: 'qa' }, 'NotFound'],
    ['an expiry already past', { ...PAYMENTS_PROD, expiresAt: '2000-01-01T00:00:00Z' }, 'Expired'],
  ] as const)('refuses %s and writes nothing', async (_name, request, refusal) => {
    const r = rig();
    expect(await r.halter.halt(person('alice', 'j1'), request)).toMatchObject({
      ok: false,
      refusal,
    });
    expect(r.port.writes).toBe(0);
  });

  it('refuses a person no approver claims before looking for Pipelines', async () => {
    const r = rig();
    const request = { ...PAYMENTS_PROD, selector: selector('team=nobody') };
    expect(await r.halter.halt(person('mallory', 'j1'), request)).toMatchObject({
      refusal: 'Forbidden',
    });
  });

  it('refuses more Pipelines than one call may halt, saying how many matched', async () => {
    const r = rig(fleet(), 1);
    const result = await r.halter.halt(person('alice', 'j1'), PAYMENTS_PROD);
    expect(result).toMatchObject({ ok: false, refusal: 'TooMany' });
    expect(!result.ok && result.detail).toContain(
      '2 Pipelines match; one call may halt or lift at most 1',
    );
    expect(r.port.writes).toBe(0);
  });

  it('reports a Contended Pipeline, and the same call again completes the halt', async () => {
    const r = rig();
    // Each of the three writes (p1's, p2's two attempts) first changes p2, as another replica
    // would: p2 meets a conflict on every attempt the policy allows.
    for (let i = 0; i < 3; i++)
      r.port.beforeNextWrite(() => {
        const p2 = r.port.peek(NS, 'p2');
        if (p2 !== undefined) r.port.put(p2);
      });
    const caller = person('alice', 'j1');
    const first = await r.halter.halt(caller, PAYMENTS_PROD);
    expect(first).toMatchObject({ ok: true, complete: false });
    const outcomes = first.ok ? first.pipelines.map((p) => p.outcome).sort() : [];
    expect(outcomes).toEqual(['contended', 'halted']);
    const again = await r.halter.halt(caller, PAYMENTS_PROD);
    expect(again).toMatchObject({ ok: true, complete: true });
    expect(again.ok && again.pipelines.map((p) => p.outcome).sort()).toEqual(['halted', 'held']);
    expect(first.ok && again.ok && again.halt.id).toBe(first.ok && first.halt.id);
    expect(r.haltsOf('p1')).toHaveLength(1);
    expect(r.haltsOf('p2')).toHaveLength(1);
    expect(r.outcomes).toEqual(['human:halt-Partial', 'human:halted']);
  });

  it('halts nothing with a replayed credential, not even a Pipeline that matches only since', async () => {
    const pipelines = fleet();
    const r = rig(pipelines);
    const caller = person('alice', 'j1');
    const halted = await r.halter.halt(caller, PAYMENTS_PROD);
    if (!halted.ok) throw new Error('not halted');
    expect((await r.halter.lift(person('bob', 'j2'), halted.halt.id)).ok).toBe(true);
    // p3 is labelled payments since: the replay must not halt it either.
    const p3 = r.port.peek(NS, 'p3');
    if (p3 === undefined) throw new Error('no p3');
    p3.metadata.labels = { team: 'payments' };
    r.port.put(p3);
    const writes = r.port.writes;
    expect(await r.halter.halt(caller, PAYMENTS_PROD)).toEqual({ ok: false, refusal: 'Replayed' });
    expect(r.port.writes).toBe(writes);
    expect(r.haltsOf('p3')).toBeUndefined();
  });
});

describe('FleetHalter.lift', () => {
  it('lifts the halt from every Pipeline holding it, keeping tombstones', async () => {
    const r = rig();
    const halted = await r.halter.halt(person('alice', 'j1'), PAYMENTS_PROD);
    if (!halted.ok) throw new Error('not halted');
    const lifted = await r.halter.lift(person('bob', 'j2'), halted.halt.id);
    expect(lifted).toMatchObject({ ok: true, complete: true });
    expect(lifted.ok && lifted.pipelines.map((p) => p.outcome)).toEqual(['lifted', 'lifted']);
    for (const name of ['p1', 'p2'])
      expect(r.haltsOf(name)).toMatchObject([{ id: halted.halt.id, liftedBy: 'bob' }]);
    expect(
      haltsByScope(
        r.all().map((p) => p.status?.halts),
        T0,
      ),
    ).toEqual({ environment: 0, pipeline: 0 });
    expect(await r.halter.lift(person('bob', 'j3'), halted.halt.id)).toEqual({
      ok: false,
      refusal: 'NotFound',
    });
    expect(r.outcomes).toEqual(['human:halted', 'human:lifted', 'human:lift-NotFound']);
  });

  it('lifts from one named Pipeline only, and refuses a caller who may not lift all', async () => {
    const r = rig();
    const halted = await r.halter.halt(person('alice', 'j1'), PAYMENTS_PROD);
    if (!halted.ok) throw new Error('not halted');
    expect(await r.halter.lift(person('mallory'), halted.halt.id)).toMatchObject({
      refusal: 'Forbidden',
    });
    const one = await r.halter.lift(person('bob', 'j2'), halted.halt.id, 'flux-system/p2');
    expect(one.ok && one.pipelines).toEqual([{ pipeline: 'flux-system/p2', outcome: 'lifted' }]);
    expect(
      haltsByScope(
        r.all().map((p) => p.status?.halts),
        T0,
      ),
    ).toEqual({ environment: 1, pipeline: 0 });
  });
});
