import { describe, expect, it } from 'vitest';
import type { TargetStatus } from '../../../src/evaluate/decisions.js';
import { StoredReads, type StoredRead } from '../../../src/verify/stored-reads.js';

/** Where every object of these tests is: the caller names it with the object. */
const AT = { cluster: 'eu', namespace: 'app' };

function status(revision: string): TargetStatus {
  return {
    location: AT,
    health: 'Healthy',
    reason: 'Ready',
    message: 'ok',
    revision,
  };
}

function read(n: number, extra: Partial<StoredRead<string>> = {}): StoredRead<string> {
  const s = status(`1.0.${String(n)}`);
  return { status: s, readAt: 1_000 + n, scope: `scope-${String(n % 3)}`, settled: s, ...extra };
}

describe('StoredReads', () => {
  it('gives back every field it was given, absent ones as absent', () => {
    const reads = new StoredReads<string>();
    const full = read(1, {
      seenAt: 900,
      since: 800,
      unannounced: true,
      streak: { healthyRevision: '1.0.1', healthySince: 700, brokenAt: 600 },
    });
    reads.set('a', full);
    reads.set('b', read(2, { unannounced: false, streak: { brokenAt: 5 } }));
    reads.set('c', read(3));
    expect(reads.get('a', AT)).toEqual(full);
    // The status is kept as its fields: an equal one comes back.
    expect(reads.get('a', AT)?.status).toEqual(full.status);
    expect(reads.get('b', AT)).toMatchObject({ unannounced: false, streak: { brokenAt: 5 } });
    expect(reads.get('b', AT)?.streak).toEqual({ brokenAt: 5 });
    const c = reads.get('c', AT);
    expect(c?.streak).toBeUndefined();
    expect(c?.unannounced).toBeUndefined();
    expect(c?.seenAt).toBeUndefined();
    expect([reads.readAt('c'), reads.scope('c'), reads.status('c', AT)?.revision]).toEqual([
      1_003,
      'scope-0',
      '1.0.3',
    ]);
    // The location is the caller's (it names the object), not a copy kept per object.
    const elsewhere = { cluster: 'us', namespace: 'web' };
    expect(reads.status('c', elsewhere)?.location).toBe(elsewhere);
    expect(reads.get('missing', AT)).toBeUndefined();
    expect(reads.readAt('missing')).toBeUndefined();
  });

  it('gives back the time last seen, the time last read or apart from it, and none once unset', () => {
    const reads = new StoredReads<string>();
    reads.set('a', read(1, { seenAt: 1_001 }));
    reads.set('b', read(2, { seenAt: 7 }));
    expect([reads.get('a', AT)?.seenAt, reads.get('b', AT)?.seenAt]).toEqual([1_001, 7]);
    // Read again: seen at that read (the common case), then an Unknown read keeps the old time.
    reads.set('b', read(5, { seenAt: 1_005 }));
    reads.set('a', read(9, { seenAt: 1_001 }));
    expect([reads.get('a', AT)?.seenAt, reads.get('b', AT)?.seenAt]).toEqual([1_001, 1_005]);
    reads.set('a', read(10));
    reads.set('b', read(11));
    expect([reads.get('a', AT)?.seenAt, reads.get('b', AT)?.seenAt]).toEqual([
      undefined,
      undefined,
    ]);
  });

  it('keeps thousands apart through growth, deletes and reused slots', () => {
    const reads = new StoredReads<string>();
    for (let n = 0; n < 5_000; n++) reads.set(`id-${String(n)}`, read(n, { seenAt: n }));
    for (let n = 0; n < 5_000; n += 2) reads.delete(`id-${String(n)}`);
    expect(reads.size).toBe(2_500);
    expect(reads.has('id-2')).toBe(false);
    // New objects take the freed slots and must not see what the old ones left there.
    for (let n = 0; n < 1_000; n++) reads.set(`new-${String(n)}`, read(n));
    expect(reads.size).toBe(3_500);
    for (let n = 1; n < 5_000; n += 2) {
      expect(reads.get(`id-${String(n)}`, AT)).toMatchObject({ readAt: 1_000 + n, seenAt: n });
    }
    for (let n = 0; n < 1_000; n++) {
      const got = reads.get(`new-${String(n)}`, AT);
      expect(got?.seenAt).toBeUndefined();
      expect(got?.status.revision).toBe(`1.0.${String(n)}`);
    }
    expect([...reads.ids()].length).toBe(3_500);
  });

  it('keeps a status as its fields: every health, a missing revision, a settled one apart', () => {
    const reads = new StoredReads<string>();
    const healths = ['Healthy', 'Unhealthy', 'Unknown'] as const;
    healths.forEach((health, i) => {
      const s: TargetStatus = { ...status('2.0.0'), health, reason: `R${String(i)}` };
      reads.set(health, { status: s, readAt: i, settled: { ...s } });
    });
    for (const health of healths) {
      const got = reads.get(health, AT);
      expect(got?.status.health).toBe(health);
      expect(got?.settled).toEqual(got?.status);
    }
    const { revision: _, ...unrevised } = status('x');
    reads.set('none', { status: unrevised, readAt: 1 });
    expect(reads.status('none', AT)).toEqual(unrevised);
    expect(Object.keys(reads.status('none', AT) ?? {})).toEqual([
      'location',
      'health',
      'reason',
      'message',
    ]);
    expect(reads.get('none', AT)?.settled).toBeUndefined();
    // In progress after a settled state: the settled one is kept as it was.
    const progressing: TargetStatus = {
      ...status('2.1.0'),
      health: 'Unknown',
      reason: 'Progressing',
    };
    reads.set('moving', { status: progressing, readAt: 2, settled: status('2.0.0') });
    expect(reads.get('moving', AT)?.status).toEqual(progressing);
    expect(reads.get('moving', AT)?.settled).toEqual(status('2.0.0'));
    // A streak healthy at an older revision than the one read now keeps that revision.
    const streak = { healthyRevision: '2.0.0', healthySince: 10 };
    reads.set('moving', { status: progressing, readAt: 3, streak });
    expect(reads.streak('moving')).toEqual(streak);
    expect(reads.get('moving', AT)?.settled).toBeUndefined();
    reads.set('moving', {
      status: status('2.1.0'),
      readAt: 4,
      streak: { healthyRevision: '2.1.0' },
    });
    expect(reads.streak('moving')).toEqual({ healthyRevision: '2.1.0' });
    // A freed slot reused by another object shows nothing of what was kept apart for it.
    reads.set('moving', { status: progressing, readAt: 5, settled: status('1.0.0'), streak });
    reads.delete('moving');
    reads.set('next', { status: status('3.0.0'), readAt: 6, streak: {} });
    expect(reads.get('next', AT)?.settled).toBeUndefined();
    expect(reads.streak('next')).toEqual({});
  });

  it('gives back the room grown ahead, keeping every read, and grows again after', () => {
    const reads = new StoredReads<string>();
    for (let n = 0; n < 1_000; n++) reads.set(`id-${String(n)}`, read(n, { seenAt: n }));
    reads.trim();
    for (let n = 0; n < 1_000; n++) {
      expect(reads.get(`id-${String(n)}`, AT)).toMatchObject({ readAt: 1_000 + n, seenAt: n });
    }
    for (let n = 1_000; n < 1_100; n++) reads.set(`id-${String(n)}`, read(n));
    reads.trim();
    expect(reads.get('id-1099', AT)?.status.revision).toBe('1.0.1099');
    expect(reads.get('id-0', AT)?.seenAt).toBe(0);
    expect(reads.size).toBe(1_100);
  });

  it('replaces a stored read whole', () => {
    const reads = new StoredReads<string>();
    reads.set('a', read(1, { seenAt: 5, unannounced: true, streak: { brokenAt: 1 } }));
    reads.set('a', read(2));
    expect(reads.get('a', AT)).toEqual(read(2));
    expect(reads.size).toBe(1);
  });
});
