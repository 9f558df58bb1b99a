import { describe, expect, it } from 'vitest';
import type { AlertCheck } from '../../../src/notify/alert-check.js';
import type { AttemptResult } from '../../../src/notify/alert-progress.js';
import type { PromotionAlert, UncheckedAlert } from '../../../src/notify/alert-resource.js';
import { Notifier, type NotifierPorts, type Prepared } from '../../../src/notify/notifier.js';
import type { Pipeline } from '../../../src/pipeline/pipeline-resource.js';
import { createLogger } from '../../../src/log.js';
import { jsonEqual } from '../../../src/json/json-equal.js';
import { withOwedEvents } from '../../../src/notify/outbox-record.js';
import { flush } from '../../support/fake-scheduler.js';

const T = Date.parse('2026-11-25T10:00:00Z');

/** What the status writer records: every fact, as an alert selects them all. */
const RECORD_ALL = { horizonMs: 86_400_000, wants: () => true };

/** The Pipeline as stored after a status write recorded the events its history owes. */
function pipeline(revisions: string[]): Pipeline {
  const written = unrecorded(revisions);
  return {
    ...written,
    status: withOwedEvents(written, written.status ?? {}, T + 100_000, RECORD_ALL),
  };
}

function unrecorded(revisions: string[]): Pipeline {
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name: 'podinfo', namespace: 'apps' },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
      environments: [
        { name: 'dev', targets: [{ namespace: 'dev' }] },
        { name: 'prod', targets: [{ namespace: 'prod' }] },
      ],
    },
    status: {
      environments: {
        prod: {
          history: revisions.map((revision, i) => ({
            revision,
            attempts: 1,
            startedTime: new Date(T + i * 10_000).toISOString(),
          })),
        },
      },
    },
  };
}

/** A store of one alert and a receiver answering from `answers`, recording every call. */
function rig(
  options: {
    leader?: () => boolean;
    answer?: () => AttemptResult;
    spec?: object;
    /** Why the alert's sender cannot be prepared (its Secret, its address), while set. */
    blocked?: () => { reason: string; problem: string } | undefined;
    /** How long (ms) a send takes on the notifier's clock. */
    sendMs?: number;
  } = {},
) {
  let stored: UncheckedAlert = {
    apiVersion: 'notifications.promotion-gateway.dev/v1alpha1',
    kind: 'PromotionAlert',
    metadata: {
      name: 'hooks',
      namespace: 'apps',
      uid: 'u',
      generation: 1,
      creationTimestamp: '2026-11-25T09:00:00Z',
      resourceVersion: '1',
    },
    spec: { address: 'https://hooks.example/x', timeout: '2s', ...options.spec },
  };
  const sent: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let writes = 0;
  const ports: NotifierPorts = {
    listAlerts: () =>
      Promise.resolve([{ ok: true, alert: stored as PromotionAlert } satisfies AlertCheck]),
    readAlert: () => Promise.resolve(stored),
    applyStatus: (_alert, change) => {
      const next = change(stored);
      // As the one writer does: a status equal to the stored one is not written.
      const changed = next !== undefined && !jsonEqual(next, stored.status);
      if (changed) {
        writes += 1;
        stored = { ...stored, status: next };
      }
      return Promise.resolve(changed);
    },
    prepare: () => {
      const blocked = options.blocked?.();
      if (blocked !== undefined) return Promise.resolve({ ok: false as const, ...blocked });
      return Promise.resolve({
        ok: true as const,
        request: (event): Prepared => ({
          ok: true,
          url: 'u',
          headers: { 'webhook-id': event.id },
          body: event.revision,
          timeoutMs: 1_000,
        }),
      });
    },
    send: async (request) => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      // Yields a turn, as a real send would, so that a second send could start meanwhile.
      await flush();
      inFlight -= 1;
      sent.push(request.body);
      now += options.sendMs ?? 0;
      return options.answer?.() ?? { kind: 'Delivered', detail: 'HTTP 200' };
    },
  };
  let now = T + 100_000;
  let pipelines = [pipeline(['1.0.0'])];
  const results = new Map<string, number>();
  const gauges: { backlog: number; oldest: number | undefined }[] = [];
  const notifier = new Notifier({
    ports,
    pipelines: () => pipelines,
    whole: (head) => head,
    isLeader: options.leader ?? (() => true),
    clock: () => now,
    random: () => 1,
    logger: createLogger('silent'),
    settings: {
      retry: { initialMs: 1_000, maxMs: 60_000, horizonMs: 86_400_000 },
      tickMs: 1_000,
      handover: true,
      selection: { crossNamespace: false },
    },
    onResult: (_alert, result) => results.set(result, (results.get(result) ?? 0) + 1),
    onBacklog: (_alert, backlog, oldest) => gauges.push({ backlog, oldest }),
  });
  return {
    notifier,
    sent,
    status: () => stored.status,
    writes: () => writes,
    maxInFlight: () => maxInFlight,
    /** The metric counts by result, and the gauges' latest values. */
    results,
    gauge: () => gauges.at(-1),
    advance: (ms: number) => {
      now += ms;
    },
    setRevisions: (revisions: string[]) => {
      pipelines = [pipeline(revisions)];
    },
  };
}

describe('Notifier', () => {
  it("waits one delivery timeout after becoming leader, then delivers (the old leader's last attempt has ended)", async () => {
    const r = rig();
    await r.notifier.tickAndWait();
    expect(r.sent).toEqual([]);
    r.advance(2_000);
    await r.notifier.tickAndWait();
    expect(r.sent).toEqual(['1.0.0']);
    expect(r.status()?.counters?.delivered).toBe(1);
  });

  it('delivers nothing and writes nothing while not leading', async () => {
    const r = rig({ leader: () => false });
    r.advance(10_000);
    await r.notifier.tickAndWait();
    expect(r.sent).toEqual([]);
    expect(r.writes()).toBe(0);
  });

  it('sends one event per stream at a time, in order, and goes idle with no further writes', async () => {
    const r = rig();
    r.setRevisions(['1.0.0']);
    await r.notifier.tickAndWait();
    r.advance(2_000);
    await r.notifier.tickAndWait();
    r.setRevisions(['1.0.0', '1.1.0']);
    await r.notifier.tickAndWait();
    await r.notifier.tickAndWait();
    expect(r.sent).toEqual(['1.0.0', '1.1.0']);
    expect(r.maxInFlight()).toBe(1);
    const writes = r.writes();
    for (let i = 0; i < 5; i++) await r.notifier.tickAndWait();
    expect(r.writes()).toBe(writes);
  });

  it('stops for good at a 410 until the spec changes', async () => {
    const r = rig({ answer: () => ({ kind: 'Gone', detail: 'HTTP 410' }) });
    await r.notifier.tickAndWait();
    r.advance(2_000);
    await r.notifier.tickAndWait();
    expect(r.status()?.conditions?.[0]).toMatchObject({ reason: 'Gone', status: 'False' });
    r.advance(60_000);
    await r.notifier.tickAndWait();
    expect(r.sent).toHaveLength(1);
  });

  it('says Suspended and sends nothing for a suspended alert', async () => {
    const r = rig({ spec: { suspend: true } });
    r.advance(2_000);
    await r.notifier.tickAndWait();
    expect(r.sent).toEqual([]);
    expect(r.status()?.conditions?.[0]).toMatchObject({ reason: 'Suspended', status: 'False' });
  });

  it('says why it cannot deliver, steadily: one write while the Secret is missing, then delivers', async () => {
    let missing = true;
    const r = rig({
      blocked: () =>
        missing ? { reason: 'SecretNotFound', problem: 'Secret apps/hooks not found' } : undefined,
    });
    // Leading from the first tick on; after one delivery timeout it may send.
    await r.notifier.tickAndWait();
    r.advance(2_000);
    for (let i = 0; i < 6; i++) {
      await r.notifier.tickAndWait();
      r.advance(1_000);
      expect(r.status()?.conditions?.[0]).toMatchObject({
        status: 'False',
        reason: 'SecretNotFound',
      });
    }
    // Said once, then never written again while nothing changed (no flapping to True).
    expect(r.writes()).toBe(1);
    expect(r.sent).toEqual([]);
    missing = false;
    await r.notifier.tickAndWait();
    expect(r.sent).toEqual(['1.0.0']);
    expect(r.status()?.conditions?.[0]).toMatchObject({ status: 'True', reason: 'Succeeded' });
  });

  it('sets the gauges from the status as written, also after rounds that send nothing', async () => {
    const r = rig();
    r.setRevisions(['1.0.0', '1.1.0']);
    await r.notifier.tickAndWait();
    r.advance(2_000);
    await r.notifier.tickAndWait();
    await r.notifier.tickAndWait();
    expect(r.status()?.backlog).toBe(0);
    expect(r.gauge()).toEqual({ backlog: 0, oldest: undefined });
    r.advance(60_000);
    await r.notifier.tickAndWait();
    expect(r.gauge()).toEqual({ backlog: 0, oldest: undefined });
  });

  it('counts an event that crossed the horizon while it was sent as the status does: dropped', async () => {
    const r = rig({ answer: () => ({ kind: 'Failed', detail: 'HTTP 500' }), sendMs: 2_000 });
    await r.notifier.tickAndWait();
    // The one event (at T) is a second inside the horizon when the round plans its send, and
    // past it when the round writes what came of it.
    r.advance(T + 86_400_000 - 1_000 - (T + 100_000));
    await r.notifier.tickAndWait();
    expect(r.sent).toEqual(['1.0.0']);
    const counters = r.status()?.counters;
    expect(counters).toMatchObject({ dropped: 1, failed: 0 });
    expect(Object.fromEntries(r.results)).toEqual({ Dropped: 1 });
  });

  it('counts in its metrics exactly what the status counts, past the horizon too', async () => {
    const r = rig({ answer: () => ({ kind: 'Failed', detail: 'HTTP 500' }) });
    r.setRevisions(['1.0.0', '1.1.0', '1.2.0']);
    r.advance(2_000);
    for (let i = 0; i < 5; i++) {
      await r.notifier.tickAndWait();
      r.advance(30_000);
    }
    // A day later every event still waiting is past the horizon: dropped, and counted once.
    r.advance(86_400_000);
    await r.notifier.tickAndWait();
    const counters = r.status()?.counters;
    expect(counters?.dropped).toBeGreaterThan(0);
    expect(counters?.superseded).toBeGreaterThan(0);
    expect(Object.fromEntries(r.results)).toEqual({
      Failed: counters?.failed,
      Superseded: counters?.superseded,
      Dropped: counters?.dropped,
    });
    expect(r.status()?.backlog).toBe(0);
    expect(r.gauge()).toEqual({ backlog: 0, oldest: undefined });
  });
});
