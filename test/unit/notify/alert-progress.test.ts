import { describe, expect, it } from 'vitest';
import { planAlert, statusAfter, type AttemptResult } from '../../../src/notify/alert-progress.js';
import { MAX_STREAMS, type PromotionAlert } from '../../../src/notify/alert-resource.js';
import type { NotificationFact } from '../../../src/notify/facts.js';

const T = Date.parse('2026-11-25T10:00:00Z');
const retry = { initialMs: 1_000, maxMs: 60_000, horizonMs: 24 * 3_600_000 };

function alert(status?: PromotionAlert['status']): PromotionAlert {
  return {
    apiVersion: 'notifications.promotion-gateway.dev/v1alpha1',
    kind: 'PromotionAlert',
    metadata: {
      name: 'chat',
      namespace: 'apps',
      uid: 'a1',
      generation: 1,
      creationTimestamp: '2026-11-25T09:00:00Z',
    },
    spec: { address: 'https://hooks.example/x' },
    ...(status === undefined ? {} : { status }),
  };
}

function fact(
  type: NotificationFact['type'],
  revision: string,
  at: number,
  environment = 'prod',
): NotificationFact {
  return {
    type,
    revision,
    at,
    time: new Date(at).toISOString(),
    pipeline: { namespace: 'apps', name: 'podinfo' },
    environment,
    reason: type,
    message: type,
    severity: 'info',
    targets: [],
    subject: '',
  };
}

/** Runs rounds with a receiver that answers `answer` for each due event, like the notifier. */
function run(
  facts: NotificationFact[],
  rounds: { now: number; answer: (id: string) => AttemptResult }[],
) {
  let current = alert();
  const sent: string[] = [];
  for (const { now, answer } of rounds) {
    const round = planAlert(current, facts, now, retry);
    const results = new Map(round.due.map((f) => [f.id, answer(f.id)] as const));
    for (const [id, r] of results) if (r.kind === 'Delivered') sent.push(id);
    current = alert(statusAfter({ alert: current, round, results, now, retry, random: () => 1 }));
  }
  return { status: current.status, sent };
}

const ok = (): AttemptResult => ({ kind: 'Delivered', detail: 'HTTP 200' });
const down = (): AttemptResult => ({ kind: 'Failed', detail: 'HTTP 503' });

describe('an alert round', () => {
  it('delivers one event per stream per round, in order, and counts it', () => {
    const facts = [
      fact('PromotionStarted', 'r1', T),
      fact('PromotionSucceeded', 'r1', T + 1),
      fact('PromotionStarted', 'r1', T + 2, 'staging'),
    ];
    const { status, sent } = run(facts, [
      { now: T + 10, answer: ok },
      { now: T + 20, answer: ok },
      { now: T + 30, answer: ok },
    ]);
    expect(sent).toHaveLength(3);
    expect(status?.counters).toEqual({ delivered: 3, failed: 0, superseded: 0, dropped: 0 });
    expect(status?.backlog).toBe(0);
    expect(status?.conditions?.[0]).toMatchObject({
      type: 'Ready',
      status: 'True',
      reason: 'Succeeded',
    });
    expect(status?.recent?.[0]).toMatchObject({ result: 'Delivered' });
  });

  it('backs off a failing receiver, says so in Ready, and holds the backlog and its age', () => {
    const facts = [fact('PromotionStarted', 'r1', T)];
    const { status } = run(facts, [
      { now: T + 10, answer: down },
      { now: T + 20, answer: down }, // not due yet: the first retry waits 1 s
    ]);
    expect(status?.counters?.failed).toBe(1);
    expect(status?.backlog).toBe(1);
    expect(status?.oldestUndelivered).toBe(new Date(T).toISOString());
    expect(status?.conditions?.[0]).toMatchObject({ status: 'False', reason: 'DeliveryFailed' });
    expect(status?.streams?.[0]?.head).toMatchObject({ attempts: 1, next: T + 10 + 1_000 });
  });

  it('supersedes the undelivered R1 success by R2 and never sends it after R2', () => {
    const r1 = [fact('PromotionStarted', 'r1', T), fact('PromotionSucceeded', 'r1', T + 1)];
    let current = alert();
    const delivered: NotificationFact[] = [];
    const roundAt = (facts: NotificationFact[], now: number, up: boolean) => {
      const round = planAlert(current, facts, now, retry);
      const results = new Map(round.due.map((f) => [f.id, up ? ok() : down()] as const));
      if (up) delivered.push(...round.due.map((d) => d.fact));
      current = alert(statusAfter({ alert: current, round, results, now, retry, random: () => 1 }));
    };
    roundAt(r1, T + 10, true); // r1 started delivered
    roundAt(r1, T + 20, false); // r1 succeeded fails
    const r2 = [...r1, fact('PromotionStarted', 'r2', T + 30)];
    for (let i = 0; i < 5; i++) roundAt(r2, T + 100_000 + i * 100_000, true);
    expect(delivered.map((f) => `${f.type} ${f.revision}`)).toEqual([
      'PromotionStarted r1',
      'PromotionStarted r2',
    ]);
    expect(current.status?.counters).toMatchObject({ delivered: 2, superseded: 1 });
    expect(
      current.status?.recent?.some((r) => r.result === 'Superseded' && r.revision === 'r1'),
    ).toBe(true);
  });

  it('stops at a 410 with Ready=False Gone, keeping the event', () => {
    const { status } = run(
      [fact('PromotionStarted', 'r1', T)],
      [{ now: T + 10, answer: () => ({ kind: 'Gone', detail: 'HTTP 410' }) }],
    );
    expect(status?.conditions?.[0]).toMatchObject({
      status: 'False',
      reason: 'Gone',
      observedGeneration: 1,
    });
    expect(status?.backlog).toBe(1);
  });

  it('writes nothing new when nothing happened (the same status twice)', () => {
    const facts = [fact('PromotionStarted', 'r1', T)];
    const first = run(facts, [{ now: T + 10, answer: ok }]).status;
    const again = statusAfter({
      alert: alert(first),
      round: planAlert(alert(first), facts, T + 50_000, retry),
      results: new Map(),
      now: T + 50_000,
      retry,
      random: () => 1,
    });
    expect(again).toEqual(first);
  });

  it('follows at most MAX_STREAMS streams and says so; the others wait, none is lost', () => {
    const facts = Array.from({ length: MAX_STREAMS + 2 }, (_, i) =>
      fact('PromotionStarted', 'r1', T + i, `env-${String(i).padStart(4, '0')}`),
    );
    const round = planAlert(alert(), facts, T + 10_000, retry);
    expect(round.due).toHaveLength(MAX_STREAMS);
    expect(round.overflow).toBe(2);
    const status = statusAfter({
      alert: alert(),
      round,
      results: new Map(),
      now: T + 10_000,
      retry,
      random: () => 1,
    });
    expect(status.conditions?.[0]).toMatchObject({ status: 'False', reason: 'TooManyStreams' });
    expect(status.streams).toHaveLength(MAX_STREAMS);
  });
});
