/**
 * The refusal log's limiter: one line per source a minute, the count left out told on the next
 * line, and a bounded memory however many sources there are.
 */
import { describe, expect, it } from 'vitest';
import { RefusalLimiter } from '../../../src/ingress/refusals.js';

function limiter(limits = { windowMs: 60_000, maxSources: 4 }) {
  let now = 0;
  const l = new RefusalLimiter(() => now, limits);
  return {
    l,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('RefusalLimiter', () => {
  it('logs the first refusal of a source, then none for a minute, then tells the count', () => {
    const { l, advance } = limiter();
    expect(l.admit('10.0.0.1 /v1/events/:cluster')).toEqual({
      log: true,
      suppressed: 0,
      overflow: false,
    });
    for (let i = 0; i < 999; i++) {
      advance(10);
      expect(l.admit('10.0.0.1 /v1/events/:cluster').log).toBe(false);
    }
    advance(60_000);
    expect(l.admit('10.0.0.1 /v1/events/:cluster')).toEqual({
      log: true,
      suppressed: 999,
      overflow: false,
    });
  });

  it('limits each source (address and route) on its own', () => {
    const { l } = limiter();
    expect(l.admit('10.0.0.1 /v1/events/:cluster').log).toBe(true);
    expect(l.admit('10.0.0.2 /v1/events/:cluster').log).toBe(true);
    expect(l.admit('10.0.0.1 /promotion/:namespace/:name/:env').log).toBe(true);
    expect(l.admit('10.0.0.1 /v1/events/:cluster').log).toBe(false);
  });

  it('keeps at most maxSources; sources beyond share one overflow slot, limited like one', () => {
    const { l, advance } = limiter();
    const logged = Array.from({ length: 10_000 }, (_, i) => l.admit(`10.1.${i} /r`)).filter(
      (a) => a.log,
    );
    // Four tracked sources and one overflow line.
    expect(logged).toHaveLength(5);
    expect(logged[4]).toEqual({ log: true, suppressed: 0, overflow: true });
    expect(l.size).toBe(4);
    advance(60_000);
    // The minute is over: sources whose window ended make room for new ones.
    expect(l.admit('10.2.0 /r')).toEqual({ log: true, suppressed: 0, overflow: false });
    expect(l.size).toBe(1);
  });

  it('tells the overflow slot count of refusals left out on its next line', () => {
    const { l, advance } = limiter({ windowMs: 1000, maxSources: 1 });
    l.admit('a');
    l.admit('b');
    l.admit('c');
    l.admit('d');
    advance(500);
    expect(l.admit('e').log).toBe(false);
    advance(100);
    // 'a' is still fresh, so 'f' goes to the overflow slot, whose window is not over yet.
    expect(l.admit('f').log).toBe(false);
    advance(1000);
    expect(l.admit('g')).toEqual({ log: true, suppressed: 0, overflow: false });
    expect(l.admit('h')).toEqual({ log: true, suppressed: 4, overflow: true });
  });
});
