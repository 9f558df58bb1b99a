/**
 * Halts and lifts over the one status writer and a fake store: who may halt (configured
 * approvers within the environment's approver lists, CI jobs their policy covers), what is
 * recorded, logged and announced, expired halts pruned, and every refusal leaving the status as
 * it was.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Halter, type HaltCaller } from '../../../src/halts/halter.js';
import {
  haltChange,
  liftChange,
  MAX_HALT_RECORDS,
  MAX_HALTS,
} from '../../../src/halts/halt-record.js';
import type { Principal } from '../../../src/auth/identity.js';
import { createLogger } from '../../../src/log.js';
import type { HaltRecord, Pipeline } from '../../../src/pipeline/pipeline-resource.js';
import { FakePipelineWriter, statusWriterOver } from '../../support/fake-pipeline-writer.js';
import { T0, samplePipeline } from '../../support/pipeline-fixtures.js';

const REF = { namespace: 'flux-system', name: 'podinfo' };

function person(name: string, groups: string[] = []): HaltCaller {
  const principal: Principal = { name, kind: 'human', groups };
  return { principal, ciAllowed: () => Promise.resolve(false) };
}

function ciJob(covers: readonly string[]): HaltCaller {
  const principal: Principal = { name: 'ci:e2e', kind: 'ci', groups: [] };
  return {
    principal,
    ciAllowed: (_pipeline, env) => Promise.resolve(env !== undefined && covers.includes(env)),
  };
}

function rig(pipeline: Pipeline = samplePipeline()) {
  const port = new FakePipelineWriter();
  const stored = port.put(pipeline);
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const rechecks: string[] = [];
  const outcomes: string[] = [];
  let now = T0;
  const halter = new Halter({
    catalog: { get: () => stored },
    status: statusWriterOver(port),
    events: port,
    logger: createLogger('info', sink),
    now: () => now,
    approvers: ['alice', 'bob'],
    floors: {},
    recheck: (id) => rechecks.push(id),
    onOutcome: (kind, outcome) => outcomes.push(`${kind}:${outcome}`),
  });
  const halts = () => port.peek(REF.namespace, REF.name)?.status?.halts;
  const advance = (ms: number) => {
    now += ms;
  };
  return { halter, port, lines, rechecks, outcomes, halts, advance };
}

/** samplePipeline whose prod lets only `group:sre` approve. */
function withProdApprovers(): Pipeline {
  const p = samplePipeline();
  const prod = p.spec.environments[2];
  if (prod === undefined) throw new Error('no prod');
  prod.promotion = { strategy: { notification: {} }, approval: { approvers: ['group:sre'] } };
  return p;
}

describe('Halter', () => {
  it('records a halt, logs it, announces it and asks for a re-check', async () => {
    const r = rig();
    const result = await r.halter.halt(REF, person('alice'), {
      environment: 'prod',
      reason: 'incident 42',
      expiresAt: new Date(T0 + 3_600_000).toISOString(),
    });
    expect(result.ok).toBe(true);
    const stored = r.halts();
    expect(stored).toHaveLength(1);
    expect(stored?.[0]).toMatchObject({
      environment: 'prod',
      principal: 'alice',
      kind: 'human',
      reason: 'incident 42',
      expiresAt: new Date(T0 + 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    });
    expect(r.lines.filter((l) => l.msg === 'halt recorded')).toHaveLength(1);
    expect(r.port.events.map((e) => e.reason)).toEqual(['PromotionsHalted']);
    expect(r.port.events[0]?.message).toContain('alice halted promotions of prod');
    expect(r.rechecks).toEqual(['flux-system/podinfo']);
    expect(r.outcomes).toEqual(['human:halted']);
  });

  it('lifts a halt by id, logs and announces who lifted it', async () => {
    const r = rig();
    const halted = await r.halter.halt(REF, person('alice'), { reason: 'freeze everything' });
    if (!halted.ok) throw new Error('not halted');
    const lifted = await r.halter.lift(REF, person('bob'), halted.halt.id);
    expect(lifted).toEqual({ ok: true, halt: halted.halt });
    expect(r.halts()).toBeUndefined();
    expect(r.lines.filter((l) => l.msg === 'halt lifted')).toMatchObject([{ by: 'bob' }]);
    expect(r.port.events.map((e) => e.reason)).toEqual(['PromotionsHalted', 'HaltLifted']);
    expect(await r.halter.lift(REF, person('bob'), halted.halt.id)).toEqual({
      ok: false,
      refusal: 'NotFound',
    });
  });

  it.each([
    ['an unknown person', person('mallory'), 'prod'],
    ['an SSO identity no approver claims', person('oidc:https://sso#x'), 'prod'],
    ['a person outside prod’s approver list', person('alice', ['dev']), 'prod'],
    ['a person outside prod’s list, for the whole Pipeline', person('alice'), undefined],
    ['a CI job its policy does not cover', ciJob(['prod']), 'staging'],
    ['a CI job, for the whole Pipeline', ciJob(['prod']), undefined],
  ] as const)('refuses %s and writes nothing', async (_name, caller, environment) => {
    const r = rig(withProdApprovers());
    const result = await r.halter.halt(REF, caller, {
      ...(environment === undefined ? {} : { environment }),
      reason: 'x',
    });
    expect(result).toEqual({ ok: false, refusal: 'Forbidden' });
    expect(r.port.writes).toBe(0);
    expect(r.port.events).toHaveLength(0);
  });

  it('lets an allowed group member, and a covered CI job, halt prod', async () => {
    const r = rig(withProdApprovers());
    expect(
      (await r.halter.halt(REF, person('alice', ['sre']), { environment: 'prod', reason: 'a' })).ok,
    ).toBe(true);
    expect(
      (await r.halter.halt(REF, ciJob(['prod']), { environment: 'prod', reason: 'b' })).ok,
    ).toBe(true);
    expect(r.halts()?.map((h) => h.principal)).toEqual(['alice', 'ci:e2e']);
    // A person who may not halt prod may not lift its halt either.
    const id = r.halts()?.[0]?.id ?? '';
    expect(await r.halter.lift(REF, person('bob'), id)).toEqual({
      ok: false,
      refusal: 'Forbidden',
    });
    expect(r.halts()).toHaveLength(2);
  });

  it('refuses an unknown environment and an expiry already past', async () => {
    const r = rig();
    expect(await r.halter.halt(REF, person('alice'), { environment: 'qa', reason: 'x' })).toEqual({
      ok: false,
      refusal: 'NotFound',
    });
    const past = new Date(T0).toISOString();
    expect(await r.halter.halt(REF, person('alice'), { reason: 'x', expiresAt: past })).toEqual({
      ok: false,
      refusal: 'Expired',
    });
    expect(r.port.writes).toBe(0);
  });

  it('prunes expired halts on the next write', async () => {
    const r = rig();
    const soon = new Date(T0 + 1_000).toISOString();
    await r.halter.halt(REF, person('alice'), {
      environment: 'prod',
      reason: 'a',
      expiresAt: soon,
    });
    r.advance(2_000);
    await r.halter.halt(REF, person('alice'), { environment: 'staging', reason: 'b' });
    expect(r.halts()?.map((h) => h.reason)).toEqual(['b']);
  });
});

describe('halt status changes', () => {
  const halt = (id: string, expiresAt?: string): HaltRecord => ({
    id,
    principal: 'alice',
    kind: 'human',
    reason: 'r',
    time: new Date(T0).toISOString(),
    ...(expiresAt === undefined ? {} : { expiresAt }),
  });
  const withHalts = (halts: HaltRecord[]) => samplePipeline({ halts });
  const later = new Date(T0 + 600_000).toISOString();
  const tomb = (id: string, jti: string): HaltRecord => ({
    ...halt(id),
    jti,
    credentialExpiresAt: later,
    liftedAt: new Date(T0 - 1000).toISOString(),
    liftedBy: 'bob',
  });

  it('refuses more than MAX_HALTS halts in force, and a duplicate id', () => {
    const full = withHalts(Array.from({ length: MAX_HALTS }, (_, i) => halt(`h${String(i)}`)));
    expect(haltChange(halt('new'), T0, () => true)(full)).toEqual({ keep: 'Full' });
    // Tombstones count against the records kept (the CRD's maxItems), not against those in force.
    const tombstones = Array.from({ length: MAX_HALT_RECORDS - 1 }, (_, i) =>
      tomb(`t${String(i)}`, `j${String(i)}`),
    );
    expect(haltChange(halt('new'), T0, () => true)(withHalts(tombstones))).toMatchObject({
      verdict: 'Recorded',
    });
    const kept = withHalts([...tombstones, tomb('last', 'jl')]);
    expect(haltChange(halt('new'), T0, () => true)(kept)).toEqual({ keep: 'Full' });
    expect(haltChange(halt('h1'), T0, () => true)(withHalts([halt('h1')]))).toEqual({
      keep: 'Duplicate',
    });
    expect(haltChange(halt('x'), T0, () => false)(withHalts([]))).toEqual({ keep: 'Stale' });
  });

  it('lifts only a halt in force that the judge allows', () => {
    const stored = withHalts([halt('a'), halt('old', new Date(T0 - 1).toISOString())]);
    expect(liftChange('old', T0, () => true, 'bob')(stored)).toEqual({
      keep: { outcome: 'Absent' },
    });
    expect(liftChange('a', T0, () => false, 'bob')(stored)).toEqual({
      keep: { outcome: 'Forbidden' },
    });
    const lifted = liftChange('a', T0, () => true, 'bob')(stored);
    expect(lifted).toMatchObject({ verdict: { outcome: 'Lifted', lifted: { id: 'a' } } });
    expect('write' in lifted && lifted.write.halts).toBeUndefined();
  });
});
