/**
 * LeaderElector against an in-memory Lease store, on hand-driven time: who leads, when
 * leadership moves, and that a leader always gives up before anyone else may take over.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { LeaseObject } from '../../../src/kube/ports.js';
import { createLogger } from '../../../src/log.js';
import { microTime } from '../../../src/time/kube-time.js';
import { LeaderElector } from '../../../src/leadership/leader.js';
import { FakeLeases, type FakeLeaseView } from '../../support/fake-lease-store.js';
import { advanceInSteps, FakeScheduler } from '../../support/fake-scheduler.js';

const NS = 'flux-system';
const NAME = 'promotion-gateway-resync';
const START = Date.parse('2026-11-21T10:00:00Z');
const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

interface Candidate {
  elector: LeaderElector;
  view: FakeLeaseView;
  /** Every isLeader() change, with the fake time it happened at. */
  changes: { leader: boolean; at: number }[];
  logs: Record<string, unknown>[];
}

function setup() {
  const scheduler = new FakeScheduler(START);
  const leases = new FakeLeases();
  /** `wallJumpMs`: how far this replica's wall clock is ahead of fake time (NTP steps). */
  const candidate = (identity: string, wallJumpMs: () => number = () => 0): Candidate => {
    const view = leases.view();
    const logs: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logs.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    // random() = 0: attempts come exactly every retryPeriod (2 s), which the timings below use.
    const elector = new LeaderElector({
      store: view,
      namespace: NS,
      name: NAME,
      identity,
      scheduler,
      now: () => scheduler.now() + wallJumpMs(),
      random: () => 0,
      logger: createLogger('info', sink),
    });
    const changes: Candidate['changes'] = [];
    elector.onChange((leader) => changes.push({ leader, at: scheduler.now() }));
    return { elector, view, changes, logs };
  };
  /** Moves time forward in 100 ms steps, letting the store's answers land in between. */
  const run = (ms: number) => advanceInSteps(scheduler, ms);
  const lease = () => leases.peek(NS, NAME);
  /** gw-a takes the Lease, then gw-b (its wall clock `bWallJumpMs` ahead) campaigns for `ms`. */
  const leaderAndFollower = async (ms: number, bWallJumpMs: () => number = () => 0) => {
    const a = candidate('gw-a');
    const b = candidate('gw-b', bWallJumpMs);
    a.elector.start();
    await run(100);
    b.elector.start();
    await run(ms);
    return { a, b };
  };
  return { scheduler, leases, candidate, run, lease, leaderAndFollower };
}

function seed(leases: FakeLeases, spec: LeaseObject['spec']): void {
  leases.put({ metadata: { name: NAME, namespace: NS }, spec });
}

describe('LeaderElector', () => {
  it('creates and holds a Lease nobody has, with client-go fields', async () => {
    const { candidate, run, lease } = setup();
    const a = candidate('gw-a');
    a.elector.start();
    await run(100);

    expect(a.elector.isLeader()).toBe(true);
    expect(a.changes).toEqual([{ leader: true, at: START }]);
    expect(lease()?.spec).toEqual({
      holderIdentity: 'gw-a',
      leaseDurationSeconds: 15,
      acquireTime: '2026-11-21T10:00:00.000000Z',
      renewTime: '2026-11-21T10:00:00.000000Z',
      leaseTransitions: 0,
    });
    expect(a.logs).toContainEqual(
      expect.objectContaining({ msg: 'became resync leader', identity: 'gw-a' }),
    );

    // The leader renews every retryPeriod, keeping acquireTime and the transition count.
    await run(60_000);
    expect(a.changes).toHaveLength(1);
    expect(lease()?.spec).toMatchObject({
      holderIdentity: 'gw-a',
      acquireTime: '2026-11-21T10:00:00.000000Z',
      leaseTransitions: 0,
    });
    expect(lease()?.spec.renewTime).toMatch(MICRO_TIME);
    expect(Date.parse(lease()?.spec.renewTime ?? '')).toBeGreaterThan(START + 55_000);
  });

  it('does not take a Lease its holder keeps renewing', async () => {
    const { lease, leaderAndFollower } = setup();
    const { a, b } = await leaderAndFollower(120_000);

    expect(a.elector.isLeader()).toBe(true);
    expect(b.elector.isLeader()).toBe(false);
    expect(b.changes).toEqual([]);
    expect(b.view.calls).toBeGreaterThan(50);
    expect(lease()?.spec).toMatchObject({ holderIdentity: 'gw-a', leaseTransitions: 0 });
  });

  it('takes over a Lease left unrenewed for leaseDurationSeconds, counting the transition', async () => {
    const { scheduler, leases, candidate, run, lease } = setup();
    seed(leases, {
      holderIdentity: 'gw-gone',
      leaseDurationSeconds: 15,
      acquireTime: microTime(START - 3_600_000),
      renewTime: microTime(START - 60_000),
      leaseTransitions: 3,
    });
    const b = candidate('gw-b');
    b.elector.start();
    // Expiry is measured from when b first saw this version, on b's clock, not from renewTime.
    await run(14_900);
    expect(b.elector.isLeader()).toBe(false);
    await run(2_100);

    expect(b.elector.isLeader()).toBe(true);
    const takenAt = b.changes[0]?.at ?? 0;
    expect(takenAt).toBeGreaterThanOrEqual(START + 15_000);
    expect(lease()?.spec).toEqual({
      holderIdentity: 'gw-b',
      leaseDurationSeconds: 15,
      acquireTime: microTime(takenAt),
      renewTime: microTime(takenAt),
      leaseTransitions: 4,
    });
    expect(scheduler.now()).toBe(START + 17_000);
  });

  it('is not leader when another replica wins the race to create the Lease', async () => {
    const { leases, candidate, run, lease } = setup();
    const b = candidate('gw-b');
    b.view.beforeWrite = () => {
      b.view.beforeWrite = undefined;
      seed(leases, { holderIdentity: 'gw-a', leaseDurationSeconds: 15, leaseTransitions: 0 });
    };
    b.elector.start();
    await run(5_000);

    expect(b.elector.isLeader()).toBe(false);
    expect(b.changes).toEqual([]);
    expect(lease()?.spec.holderIdentity).toBe('gw-a');
  });

  it('is not leader when another replica takes an expired Lease first (409 on replace)', async () => {
    const { leases, candidate, run, lease } = setup();
    seed(leases, { holderIdentity: 'gw-gone', leaseDurationSeconds: 1, leaseTransitions: 1 });
    const b = candidate('gw-b');
    b.view.beforeWrite = () => {
      b.view.beforeWrite = undefined;
      const current = leases.peek(NS, NAME);
      if (current === undefined) throw new Error('seeded above');
      leases.put({ ...current, spec: { ...current.spec, holderIdentity: 'gw-a' } });
    };
    b.elector.start();
    await run(2_500);
    expect(b.view.beforeWrite).toBeUndefined();

    expect(b.elector.isLeader()).toBe(false);
    expect(b.changes).toEqual([]);
    expect(lease()?.spec.holderIdentity).toBe('gw-a');
  });

  it('gives up after renewDeadline without a renewal, before anyone may take over', async () => {
    const { run, lease, leaderAndFollower } = setup();
    const { a, b } = await leaderAndFollower(10_000);
    const lastRenew = Date.parse(lease()?.spec.renewTime ?? '');
    // a is cut off from the API server; b is not.
    a.view.cutOff = true;
    await run(30_000);

    expect(a.changes.map((c) => c.leader)).toEqual([true, false]);
    expect(b.changes.map((c) => c.leader)).toEqual([true]);
    const lostAt = a.changes[1]?.at ?? 0;
    const takenAt = b.changes[0]?.at ?? 0;
    expect(lostAt).toBeLessThanOrEqual(lastRenew + 10_000);
    expect(lostAt).toBeLessThan(takenAt);
    expect(takenAt).toBeGreaterThanOrEqual(lastRenew + 15_000);
    expect(lease()?.spec).toMatchObject({ holderIdentity: 'gw-b', leaseTransitions: 1 });
    expect(a.logs).toContainEqual(
      expect.objectContaining({ msg: 'lost resync leadership', identity: 'gw-a' }),
    );
  });

  it('judges expiry on a clock that never jumps, so a wall-clock step makes no second leader', async () => {
    const { run, lease, leaderAndFollower } = setup();
    let jump = 0;
    const { a, b } = await leaderAndFollower(4_000, () => jump);
    // a's renewals stall (it still leads until its renew deadline); b's wall clock steps ahead.
    a.view.hang = true;
    jump = 3_600_000;
    await run(5_000);
    expect(b.elector.isLeader()).toBe(false);
    expect(a.elector.isLeader()).toBe(true);

    await run(20_000);
    const lostAt = a.changes[1]?.at ?? Infinity;
    const takenAt = b.changes[0]?.at ?? 0;
    expect(lostAt).toBeLessThan(takenAt);
    expect(lease()?.spec).toMatchObject({ holderIdentity: 'gw-b', leaseTransitions: 1 });
  });

  it('says once, at error, that it lacks rights on leases, and does not lead', async () => {
    const { candidate, run, lease } = setup();
    const a = candidate('gw-a');
    a.view.forbidden = true;
    a.elector.start();
    await run(20_000);

    expect(a.elector.isLeader()).toBe(false);
    expect(a.view.calls).toBeGreaterThan(3);
    expect(lease()).toBeUndefined();
    const failures = a.logs.filter((l) => String(l.msg).startsWith('resync lease call failed'));
    // Repeats of the same failure go to debug (below this logger's level).
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ level: 50, reason: 'Forbidden' });
    expect(String(failures[0]?.msg)).toContain('grant get, create and update on leases');
  });

  it('gives up on time even when renewals hang instead of failing', async () => {
    const { candidate, run, lease } = setup();
    const a = candidate('gw-a');
    a.elector.start();
    await run(4_000);
    const lastRenew = Date.parse(lease()?.spec.renewTime ?? '');
    a.view.hang = true;
    await run(12_000);

    expect(a.changes.map((c) => c.leader)).toEqual([true, false]);
    expect(a.changes[1]?.at).toBe(lastRenew + 10_000);
  });

  it('releases the Lease on stop so that another replica takes over at once', async () => {
    const { run, lease, leaderAndFollower } = setup();
    const { a, b } = await leaderAndFollower(5_000);

    await a.elector.stop();
    expect(a.elector.isLeader()).toBe(false);
    expect(a.changes.map((c) => c.leader)).toEqual([true, false]);
    expect(lease()?.spec).toMatchObject({
      holderIdentity: '',
      leaseDurationSeconds: 1,
      leaseTransitions: 0,
    });

    // b's next attempt, one retryPeriod later at most, takes it: no leaseDuration to wait out.
    const stoppedAt = a.changes[1]?.at ?? 0;
    await run(2_100);
    expect(b.elector.isLeader()).toBe(true);
    expect((b.changes[0]?.at ?? 0) - stoppedAt).toBeLessThanOrEqual(2_000);
    expect(lease()?.spec).toMatchObject({ holderIdentity: 'gw-b', leaseTransitions: 1 });

    // a, stopped, never campaigns again.
    const calls = a.view.calls;
    await run(10_000);
    expect(a.view.calls).toBe(calls);
  });

  it('refuses timings where a leader could outlive its Lease', () => {
    const { scheduler, leases } = setup();
    const base = { store: leases.view(), namespace: NS, name: NAME, identity: 'x', scheduler };
    const logger = createLogger('silent');
    expect(
      () =>
        new LeaderElector({ ...base, logger, leaseDurationMs: 10_000, renewDeadlineMs: 10_000 }),
    ).toThrow(RangeError);
    expect(
      () => new LeaderElector({ ...base, logger, renewDeadlineMs: 2_000, retryPeriodMs: 2_000 }),
    ).toThrow(RangeError);
  });
});
