/**
 * Replay protection of halts over the one status writer and a fake store: a halt records its
 * credential's jti and expiry; the same call again names the same halt (Duplicate, nothing
 * written); after a lift the halt stays as a tombstone that holds nothing, and the same
 * credential is refused (Replayed) until it expires, when the next write prunes the tombstone.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Halter, type HaltCaller } from '../../../src/halts/halter.js';
import { keptHalts } from '../../../src/halts/halt-record.js';
import type { Principal } from '../../../src/auth/identity.js';
import { haltsInForce } from '../../../src/evaluate/halts-gate.js';
import { createLogger } from '../../../src/log.js';
import { FakePipelineWriter, statusWriterOver } from '../../support/fake-pipeline-writer.js';
import { T0, samplePipeline } from '../../support/pipeline-fixtures.js';

const REF = { namespace: 'flux-system', name: 'podinfo' };
const TOKEN_LIFETIME_MS = 600_000;

function ciJob(jti: string, expiresAt = T0 + TOKEN_LIFETIME_MS): HaltCaller {
  const principal: Principal = { name: 'ci:e2e', kind: 'ci', groups: [], jti, expiresAt };
  return { principal, ciAllowed: (_p, env) => Promise.resolve(env === 'prod') };
}

function rig() {
  const port = new FakePipelineWriter();
  const stored = port.put(samplePipeline());
  let now = T0;
  const outcomes: string[] = [];
  const halter = new Halter({
    catalog: { get: () => stored },
    status: statusWriterOver(port),
    events: port,
    logger: createLogger(
      'info',
      new Writable({
        write(_c, _e, done) {
          done();
        },
      }),
    ),
    now: () => now,
    approvers: ['alice'],
    floors: {},
    recheck: () => undefined,
    onOutcome: (kind, outcome) => outcomes.push(`${kind}:${outcome}`),
  });
  const halts = () => port.peek(REF.namespace, REF.name)?.status?.halts;
  return { halter, port, halts, outcomes, advance: (ms: number) => (now += ms) };
}

const PROD = { environment: 'prod', reason: 'e2e red' };

describe('halt replay protection', () => {
  it('records the credential id and expiry, and names the same halt for the same call', async () => {
    const r = rig();
    const first = await r.halter.halt(REF, ciJob('jti-1'), PROD);
    const again = await r.halter.halt(REF, ciJob('jti-1'), PROD);
    expect(first).toMatchObject({
      ok: true,
      halt: { jti: 'jti-1', credentialExpiresAt: '2026-03-04T05:16:08Z' },
    });
    expect(again).toEqual({ ok: true, halt: first.ok ? first.halt : undefined, repeated: true });
    expect(r.port.writes).toBe(1);
    expect(r.halts()).toHaveLength(1);
    // Another credential is another halt, with another id.
    const other = await r.halter.halt(REF, ciJob('jti-2'), PROD);
    expect(other.ok && first.ok && other.halt.id !== first.halt.id).toBe(true);
    expect(r.outcomes).toEqual(['ci:halted', 'ci:halt-Duplicate', 'ci:halted']);
  });

  it('keeps a lifted halt as a tombstone that holds nothing and refuses a replay', async () => {
    const r = rig();
    const halted = await r.halter.halt(REF, ciJob('jti-1'), PROD);
    if (!halted.ok) throw new Error('not halted');
    expect((await r.halter.lift(REF, ciJob('jti-lift'), halted.halt.id)).ok).toBe(true);
    const tombstone = { ...halted.halt, liftedAt: '2026-03-04T05:06:07Z', liftedBy: 'ci:e2e' };
    expect(r.halts()).toEqual([tombstone]);
    expect(haltsInForce(r.halts(), 'prod', T0)).toEqual([]);
    const writes = r.port.writes;
    expect(await r.halter.halt(REF, ciJob('jti-1'), PROD)).toEqual({
      ok: false,
      refusal: 'Replayed',
    });
    // Lifting it again finds no halt in force.
    expect(await r.halter.lift(REF, ciJob('jti-x'), halted.halt.id)).toEqual({
      ok: false,
      refusal: 'NotFound',
    });
    expect(r.port.writes).toBe(writes);
    expect(r.halts()).toEqual([tombstone]);
  });

  it('refuses the credential of a halt that expired by itself while the credential lives', async () => {
    const r = rig();
    const soon = new Date(T0 + 1_000).toISOString();
    expect((await r.halter.halt(REF, ciJob('jti-1'), { ...PROD, expiresAt: soon })).ok).toBe(true);
    r.advance(2_000);
    expect(await r.halter.halt(REF, ciJob('jti-1'), PROD)).toEqual({
      ok: false,
      refusal: 'Replayed',
    });
  });

  it('prunes a tombstone once its credential has expired, on the next write', async () => {
    const r = rig();
    const halted = await r.halter.halt(REF, ciJob('jti-1'), PROD);
    if (!halted.ok) throw new Error('not halted');
    await r.halter.lift(REF, ciJob('jti-lift'), halted.halt.id);
    expect(keptHalts(r.halts(), T0 + TOKEN_LIFETIME_MS - 1)).toHaveLength(1);
    // The expiry is kept to the whole second after the credential's (never shorter).
    r.advance(TOKEN_LIFETIME_MS + 1_000);
    const later = ciJob('jti-2', T0 + 2 * TOKEN_LIFETIME_MS);
    expect((await r.halter.halt(REF, later, PROD)).ok).toBe(true);
    expect(r.halts()?.map((h) => h.jti)).toEqual(['jti-2']);
  });

  it('removes a lifted halt without a credential id at once', async () => {
    const r = rig();
    const principal: Principal = { name: 'alice', kind: 'human', groups: [] };
    const caller: HaltCaller = { principal, ciAllowed: () => Promise.resolve(false) };
    const halted = await r.halter.halt(REF, caller, { reason: 'x' });
    if (!halted.ok) throw new Error('not halted');
    await r.halter.lift(REF, caller, halted.halt.id);
    expect(r.halts()).toBeUndefined();
  });

  it('records a credential id longer than the CRD allows as its digest, still single-use', async () => {
    const r = rig();
    const long = 'j'.repeat(300);
    const halted = await r.halter.halt(REF, ciJob(long), PROD);
    if (!halted.ok) throw new Error('not halted');
    expect(halted.halt.jti).toMatch(/^sha256:[0-9a-f]{64}$/);
    await r.halter.lift(REF, ciJob('jti-lift'), halted.halt.id);
    expect(await r.halter.halt(REF, ciJob(long), PROD)).toEqual({ ok: false, refusal: 'Replayed' });
  });

  it('keeps a signed statement in the record', async () => {
    const r = rig();
    const principal: Principal = { name: 'alice', kind: 'human', groups: [], jti: 'st-1' };
    const caller = { principal, ciAllowed: () => Promise.resolve(false), statement: 'a.b.c' };
    const halted = await r.halter.halt(REF, caller, { reason: 'x' });
    expect(halted).toMatchObject({ ok: true, halt: { statement: 'a.b.c', jti: 'st-1' } });
    expect(r.halts()?.[0]?.statement).toBe('a.b.c');
  });
});
