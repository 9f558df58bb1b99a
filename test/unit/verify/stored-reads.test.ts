import { describe, expect, it } from 'vitest';
import type { TargetStatus } from '../../../src/evaluate/decisions.js';
import { StoredReads, type StoredRead } from '../../../src/verify/stored-reads.js';

const AT = { cluster: 'eu', namespace: 'app' };

function status(revision: string): TargetStatus {
  return { location: AT, health: 'Healthy', reason: 'Ready', message: 'ok', revision };
}

function read(n: number, extra: Partial<StoredRead<string>> = {}): StoredRead<string> {
  const s = status(`1.0.${String(n)}`);
  return { status: s, readAt: 1_000 + n, scope: `scope-${String(n % 3)}`, settled: s, ...extra };
}

describe('StoredReads', () => {
  it('gives back the record it was given, and each field through its accessor', () => {
    const reads = new StoredReads<string>();
    const full = read(1, {
      seenAt: 900,
      since: 800,
      unannounced: true,
      streak: { healthyRevision: '1.0.1', healthySince: 700, brokenAt: 600 },
    });
    reads.set('a', full);
    reads.set('c', read(3));
    expect(reads.get('a')).toBe(full);
    expect(reads.status('a')).toBe(full.status);
    expect(reads.streak('a')).toEqual({
      healthyRevision: '1.0.1',
      healthySince: 700,
      brokenAt: 600,
    });
    expect([reads.readAt('c'), reads.scope('c'), reads.status('c')?.revision]).toEqual([
      1_003,
      'scope-0',
      '1.0.3',
    ]);
    expect(reads.streak('c')).toBeUndefined();
    expect([reads.get('missing'), reads.readAt('missing'), reads.has('missing')]).toEqual([
      undefined,
      undefined,
      false,
    ]);
  });

  it('replaces a read whole, and forgets a deleted one', () => {
    const reads = new StoredReads<string>();
    reads.set('a', read(1, { seenAt: 5, unannounced: true, streak: { brokenAt: 1 } }));
    reads.set('a', read(2));
    expect(reads.get('a')).toEqual(read(2));
    expect(reads.size).toBe(1);
    reads.set('b', read(3));
    for (const id of reads.ids()) if (id === 'a') reads.delete(id);
    expect([...reads.ids()]).toEqual(['b']);
    expect(reads.has('a')).toBe(false);
  });
});
