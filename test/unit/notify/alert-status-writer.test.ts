/**
 * The one PromotionAlert status writer, under the Pipeline writer's policy: an unchanged status
 * is never written; a 409 is answered by re-reading and re-applying the change to what is
 * stored; Contended after the policy's attempts; Gone for a deleted alert; an invalid spec
 * still gets its status written (that is how the engine says why).
 */
import { describe, expect, it } from 'vitest';
import type { AlertWriter, KubeObject } from '../../../src/kube/ports.js';
import {
  AlertStatusWriter,
  type AlertStatusChange,
} from '../../../src/notify/alert-status-writer.js';
import { CONFLICT_POLICY, type WriteAttempt } from '../../../src/kube/status-writer.js';
import type { UncheckedAlert } from '../../../src/notify/alert-resource.js';

/** An in-memory status subresource: resourceVersion preconditions, 404 when deleted. */
class FakeAlerts implements AlertWriter {
  writes = 0;
  conflicts = 0;
  gets = 0;
  private version = 1;
  private readonly objects = new Map<string, KubeObject>();
  readonly beforeWrite: (() => void)[] = [];

  put(object: KubeObject): UncheckedAlert {
    const copy = structuredClone(object);
    copy.metadata.resourceVersion = String(this.version++);
    this.objects.set(copy.metadata.name, copy);
    return structuredClone(copy) as unknown as UncheckedAlert;
  }

  peek(name: string): KubeObject | undefined {
    return structuredClone(this.objects.get(name));
  }

  delete(name: string): void {
    this.objects.delete(name);
  }

  async replaceAlertStatus(
    alert: KubeObject,
  ): Promise<{ conflict: false; value: KubeObject } | { conflict: true }> {
    this.beforeWrite.shift()?.();
    await Promise.resolve();
    const stored = this.objects.get(alert.metadata.name);
    if (stored === undefined) return { conflict: true };
    if (alert.metadata.resourceVersion !== stored.metadata.resourceVersion) {
      this.conflicts++;
      return { conflict: true };
    }
    this.writes++;
    const next = { ...structuredClone(stored), status: structuredClone(alert.status) };
    next.metadata.resourceVersion = String(this.version++);
    this.objects.set(next.metadata.name, next);
    return { conflict: false, value: structuredClone(next) };
  }

  getAlert(_namespace: string, name: string): Promise<KubeObject | undefined> {
    this.gets++;
    return Promise.resolve(structuredClone(this.objects.get(name)));
  }
}

const ALERT: KubeObject = {
  apiVersion: 'notifications.promotion-gateway.dev/v1alpha1',
  kind: 'PromotionAlert',
  metadata: { name: 'hooks', namespace: 'shop', generation: 1 },
  spec: { address: 'https://x.example/' },
};

function writerOver(port: FakeAlerts, attempts: WriteAttempt[] = [], pauses: number[] = []) {
  return new AlertStatusWriter(port, {
    scheduler: {
      setTimer: (ms, fn) => {
        pauses.push(ms);
        queueMicrotask(fn);
        return () => undefined;
      },
    },
    random: () => 0.5,
    onAttempt: (a) => attempts.push(a),
  });
}

/** Counts one delivery: the change re-applied after a 409 adds to what is stored. */
const countDelivery: AlertStatusChange<number> = (stored) => {
  const delivered = (stored.status?.counters?.delivered ?? 0) + 1;
  return { write: { ...stored.status, counters: { delivered } }, verdict: delivered };
};

describe('AlertStatusWriter', () => {
  it('writes a change once and nothing when it leaves the status as stored', async () => {
    const port = new FakeAlerts();
    const attempts: WriteAttempt[] = [];
    const writer = writerOver(port, attempts);
    const set: AlertStatusChange<'set'> = () => ({ write: { backlog: 2 }, verdict: 'set' });
    const first = await writer.apply(port.put(ALERT), set);
    expect(first).toMatchObject({ outcome: 'Written', alert: { status: { backlog: 2 } } });
    if (first.outcome !== 'Written') return;
    expect(await writer.apply(first.alert, set)).toMatchObject({ outcome: 'Kept' });
    expect(port.writes).toBe(1);
    expect(attempts).toEqual(['written', 'unchanged']);
  });

  it('re-reads after a 409 and re-applies the change, so both writers land', async () => {
    const port = new FakeAlerts();
    const seen = port.put(ALERT);
    const [a, b] = await Promise.all([
      writerOver(port).apply(seen, countDelivery),
      writerOver(port).apply(seen, countDelivery),
    ]);
    expect([a.outcome, b.outcome]).toEqual(['Written', 'Written']);
    expect(port.peek('hooks')?.status).toEqual({ counters: { delivered: 2 } });
    expect([port.writes, port.conflicts, port.gets]).toEqual([2, 1, 1]);
  });

  it('stops without writing when the change refuses what the conflict brought', async () => {
    const port = new FakeAlerts();
    const seen = port.put(ALERT);
    port.put({ ...ALERT, status: { backlog: 9 } });
    const change: AlertStatusChange<string> = (stored) =>
      stored.status?.backlog === 9
        ? { keep: 'theirs' }
        : { write: { backlog: 1 }, verdict: 'mine' };
    expect(await writerOver(port).apply(seen, change)).toMatchObject({
      outcome: 'Kept',
      verdict: 'theirs',
    });
    expect(port.writes).toBe(0);
  });

  it('gives up as Contended after the policy, with jittered growing pauses', async () => {
    const port = new FakeAlerts();
    const seen = port.put(ALERT);
    for (let i = 0; i < 10; i++)
      port.beforeWrite.push(() => port.put({ ...ALERT, status: { backlog: i } }));
    const pauses: number[] = [];
    const attempts: WriteAttempt[] = [];
    const result = await writerOver(port, attempts, pauses).apply(seen, countDelivery);
    expect(result).toEqual({ outcome: 'Contended', attempts: CONFLICT_POLICY.maxAttempts });
    expect(pauses).toEqual([13, 25, 50, 100]);
    expect(attempts.at(-1)).toBe('contended');
  });

  it('answers Gone for a deleted alert and refuses a write without resourceVersion', async () => {
    const port = new FakeAlerts();
    const seen = port.put(ALERT);
    port.delete('hooks');
    expect(await writerOver(port).apply(seen, countDelivery)).toEqual({ outcome: 'Gone' });
    const noRv = { ...seen, metadata: { ...seen.metadata, resourceVersion: undefined } };
    await expect(writerOver(port).apply(noRv, countDelivery)).rejects.toThrow(/resourceVersion/);
  });

  it('writes the status of an alert whose spec is invalid', async () => {
    const port = new FakeAlerts();
    const seen = port.put({ ...ALERT, spec: { timeout: 'forever' } });
    const result = await writerOver(port).apply(seen, () => ({
      write: {
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'InvalidSpec',
            message: 'spec.timeout: must match pattern',
            lastTransitionTime: '2026-11-21T10:00:00Z',
          },
        ],
      },
      verdict: 'invalid',
    }));
    expect(result).toMatchObject({ outcome: 'Written', alert: { spec: { timeout: 'forever' } } });
  });
});
