import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NotificationFact } from '../../../src/notify/facts.js';
import {
  LATE_WINDOW_MS,
  nextAttemptAt,
  planStream,
  stateAfter,
  type AddressedFact,
  type StreamState,
} from '../../../src/notify/outbox.js';

const T = Date.parse('2026-11-25T10:00:00Z');
const HOUR = 3_600_000;

function fact(type: NotificationFact['type'], revision: string, at: number): AddressedFact {
  return {
    id: `${type}-${revision}-${String(at)}`,
    fact: {
      type,
      revision,
      at,
      time: new Date(at).toISOString(),
      pipeline: { namespace: 'apps', name: 'podinfo' },
      environment: 'prod',
      reason: type,
      message: type,
      severity: 'info',
      targets: [],
      subject: '',
    },
  };
}

const stream = { pipeline: 'apps/podinfo', environment: 'prod' };
const limits = (now: number) => ({ floor: T - HOUR, now, horizonMs: 24 * HOUR });

describe('planStream', () => {
  it('offers the facts in time order, the earliest first', () => {
    const facts = [fact('PromotionSucceeded', 'r1', T + 2), fact('PromotionStarted', 'r1', T + 1)];
    const plan = planStream(facts, undefined, limits(T + 10));
    expect(plan.head?.id).toBe('PromotionStarted-r1-' + String(T + 1));
    expect(plan.backlog).toBe(2);
    expect(plan.dueAt).toBe(T + 10);
  });

  it("supersedes an undelivered older revision's facts once a newer revision has a later fact", () => {
    const facts = [
      fact('PromotionStarted', 'r1', T + 1),
      fact('PromotionSucceeded', 'r1', T + 2),
      fact('PromotionStarted', 'r2', T + 3),
    ];
    const plan = planStream(facts, undefined, limits(T + 10));
    expect(plan.superseded.map((f) => f.fact.revision)).toEqual(['r1', 'r1']);
    expect(plan.head?.fact.revision).toBe('r2');
  });

  it('never supersedes a later fact of the running revision (a target turning unhealthy)', () => {
    const facts = [
      fact('PromotionSucceeded', 'r1', T + 1),
      fact('WaitingForApproval', 'r2', T + 2),
      fact('TargetUnhealthy', 'r1', T + 3),
    ];
    const plan = planStream(facts, undefined, limits(T + 10));
    expect(plan.superseded.map((f) => f.id)).toEqual([facts[0]?.id]);
    expect(plan.pending.map((f) => f.fact.type)).toEqual(['WaitingForApproval', 'TargetUnhealthy']);
  });

  it('drops facts older than the horizon and ignores those before the floor', () => {
    const facts = [fact('PromotionStarted', 'r1', T - 2 * HOUR), fact('PromotionStarted', 'r2', T)];
    const plan = planStream(facts, undefined, {
      floor: T - 3 * HOUR,
      now: T + HOUR,
      horizonMs: HOUR / 2,
    });
    expect(plan.dropped.map((f) => f.fact.revision)).toEqual(['r2']);
    expect(plan.superseded.map((f) => f.fact.revision)).toEqual(['r1']);
    const floored = planStream(facts, undefined, { floor: T - HOUR, now: T, horizonMs: HOUR });
    expect(floored.pending.map((f) => f.fact.revision)).toEqual(['r2']);
  });

  it('waits for the retry time of the head being retried', () => {
    const facts = [fact('PromotionStarted', 'r1', T)];
    const state: StreamState = {
      ...stream,
      cursor: T - HOUR,
      done: [],
      head: { id: facts[0]!.id, attempts: 2, firstAttempt: T, next: T + 5_000 },
    };
    expect(planStream(facts, state, limits(T + 1_000)).dueAt).toBe(T + 5_000);
  });
});

describe('stateAfter', () => {
  it('never moves the cursor past a pending fact, so a long-retried head is never lost', () => {
    // r2 waits (the head, retried for long); r1's later unhealthy target is overtaken by r2's
    // approval: it is done while the head is still pending.
    const running = fact('PromotionSucceeded', 'r1', T - 1_000);
    const head = fact('WaitingForApproval', 'r2', T);
    const overtaken = fact('TargetUnhealthy', 'r1', T + 2 * LATE_WINDOW_MS);
    const approval = fact('AuthorizationRecorded', 'r2', T + 3 * LATE_WINDOW_MS);
    const all = [running, head, overtaken, approval];
    const first = planStream(all, undefined, limits(T + 4 * LATE_WINDOW_MS));
    expect(first.superseded.map((f) => f.id)).toEqual([running.id, overtaken.id]);
    const state = stateAfter({
      stream,
      previous: undefined,
      finished: first.superseded,
      pending: first.pending,
      floor: T - HOUR,
    });
    expect(state.cursor).toBeLessThan(T);
    const later = planStream(all, state, limits(T + 5 * LATE_WINDOW_MS));
    expect(later.head?.id).toBe(head.id);
    expect(later.superseded).toEqual([]);
  });

  it('property: every fact is delivered, superseded or dropped exactly once, in order per revision', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('r1', 'r2', 'r3'), fc.integer({ min: 1, max: 50 })), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
        (raw, receiverUp) => {
          // Revisions arrive in order (r1 before r2 before r3), each fact at its own instant.
          const facts = raw
            .map(([rev, dt], i) =>
              fact(
                ['PromotionStarted', 'PromotionSucceeded'][i % 2] as NotificationFact['type'],
                rev,
                T + Number(rev.slice(1)) * 1_000 + dt * 10 + i,
              ),
            )
            .filter((f, i, all) => all.findIndex((g) => g.id === f.id) === i);
          let state: StreamState | undefined;
          const sent: AddressedFact[] = [];
          const finished = new Map<string, number>();
          for (let step = 0; step < 40; step++) {
            const now = T + 100_000 + step;
            const plan = planStream(facts, state, limits(now));
            const done = [...plan.superseded, ...plan.dropped];
            let pending = plan.pending;
            if (plan.head !== undefined && receiverUp[step] === true) {
              sent.push(plan.head);
              done.push(plan.head);
              pending = pending.slice(1);
            }
            for (const f of done) finished.set(f.id, (finished.get(f.id) ?? 0) + 1);
            state = stateAfter({
              stream,
              previous: state,
              finished: done,
              pending,
              floor: T - HOUR,
            });
          }
          for (const count of finished.values()) expect(count).toBe(1);
          // Nothing of an older revision is ever sent after a newer one.
          const revs = sent.map((f) => Number(f.fact.revision.slice(1)));
          expect(revs).toEqual([...revs].sort((a, b) => a - b));
          const ats = sent.map((f) => f.fact.at);
          expect(ats).toEqual([...ats].sort((a, b) => a - b));
          if (receiverUp.filter(Boolean).length >= facts.length)
            expect(finished.size).toBe(facts.length);
        },
      ),
    );
  });
});

describe('nextAttemptAt', () => {
  it('grows exponentially with jitter up to the cap, and never before Retry-After', () => {
    const args = { now: 0, initialMs: 1_000, maxMs: 60_000 };
    expect(nextAttemptAt({ ...args, attempts: 1, random: () => 0 })).toBe(500);
    expect(nextAttemptAt({ ...args, attempts: 1, random: () => 1 })).toBe(1_000);
    expect(nextAttemptAt({ ...args, attempts: 4, random: () => 1 })).toBe(8_000);
    expect(nextAttemptAt({ ...args, attempts: 30, random: () => 1 })).toBe(60_000);
    expect(nextAttemptAt({ ...args, attempts: 1, random: () => 0, retryAfterMs: 120_000 })).toBe(
      120_000,
    );
  });
});
