/**
 * The shared skeleton on its own: counting by shape and tallies, the fault book's set/clear/hold
 * rules, port options and usage errors, and a body refused past its limit. The simulators' own
 * tests cover the same code through their HTTP fronts.
 */
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  FaultBook,
  isUsageError,
  portOption,
  readBody,
  ShapeCounter,
  UsageError,
} from '../src/index.js';

interface Hit {
  method: string;
  path: string;
}

describe('ShapeCounter', () => {
  it('counts by shape, filters, tallies on top of zeros and forgets on reset', () => {
    const counter = new ShapeCounter<Hit>((h) => `${h.method} ${h.path}`);
    const hit = { method: 'GET', path: '/a' };
    counter.record(hit);
    hit.path = '/b';
    counter.record(hit);
    counter.record({ method: 'PUT', path: '/a' });
    counter.record({ method: 'GET', path: '/a' });
    expect(counter.count()).toBe(4);
    expect(counter.count((h) => h.method === 'GET')).toBe(3);
    expect(counter.tally((h) => h.method, { GET: 0, PUT: 0, DELETE: 0 })).toEqual({
      GET: 3,
      PUT: 1,
      DELETE: 0,
    });
    expect(counter.tally((h) => (h.path === '/a' ? h.path : undefined))).toEqual({ '/a': 3 });
    expect(counter.entries()).toEqual([
      { method: 'GET', path: '/a', count: 2 },
      { method: 'GET', path: '/b', count: 1 },
      { method: 'PUT', path: '/a', count: 1 },
    ]);
    counter.reset();
    expect(counter.count()).toBe(0);
  });
});

interface Spec {
  latency?: { ms: number };
  hang?: { all: boolean };
  errors?: { count: number }[];
}

describe('FaultBook', () => {
  it('sets and clears by kind, and hands out copies', () => {
    const book = new FaultBook<Spec>(() => Promise.resolve());
    book.set({ latency: { ms: 5 }, errors: [{ count: 2 }] });
    book.set({ latency: { ms: 7 } });
    const copy = book.current();
    copy.errors?.splice(0);
    expect(book.current()).toEqual({ latency: { ms: 7 }, errors: [{ count: 2 }] });
    book.clear('latency');
    expect(book.current()).toEqual({ errors: [{ count: 2 }] });
    book.clear();
    expect(book.current()).toEqual({});
  });

  it('counts latency through its sleep and holds requests until the hang is cleared', async () => {
    const slept: number[] = [];
    const book = new FaultBook<Spec>((ms) => {
      slept.push(ms);
      return Promise.resolve();
    });
    await book.delay(30);
    book.set({ hang: { all: true } });
    let released = 0;
    const held = [book.hold(), book.hold()].map((p) => p.then(() => released++));
    expect(book.stats()).toEqual({ delayedRequests: 1, injectedDelayMs: 30, hanging: 2 });
    book.set({ hang: undefined });
    await Promise.all(held);
    expect(released).toBe(2);
    expect(slept).toEqual([30]);
    expect(book.stats().hanging).toBe(0);
  });
});

describe('command-line helpers', () => {
  it('reads ports and tells usage errors from failures', () => {
    expect(portOption('0', '--port')).toBe(0);
    expect(portOption(undefined, '--port')).toBeUndefined();
    expect(() => portOption('70000', '--admin-port')).toThrow(
      '--admin-port must be a port number, got 70000',
    );
    expect(isUsageError(new UsageError('x'))).toBe(true);
    let parseError: unknown;
    try {
      parseArgs({ args: ['--nope'], options: {}, strict: true });
    } catch (err) {
      parseError = err;
    }
    expect(isUsageError(parseError)).toBe(true);
    expect(isUsageError(new Error('EADDRINUSE'))).toBe(false);
  });
});

describe('readBody', () => {
  it('returns the body within the limit and refuses a larger one', async () => {
    const small = new PassThrough();
    small.end('hello');
    expect(
      (await readBody(small as unknown as IncomingMessage, 5, () => new Error('big'))).toString(),
    ).toBe('hello');
    const large = new PassThrough();
    large.end('hello!');
    await expect(
      readBody(large as unknown as IncomingMessage, 5, () => new Error('too large')),
    ).rejects.toThrow('too large');
  });
});
