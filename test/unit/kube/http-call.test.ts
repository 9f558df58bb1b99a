import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent as HttpsAgent } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PooledAgent } from '../../../src/kube/agent-pool.js';
import { exchange, shouldRetry, type HttpCall } from '../../../src/kube/http-call.js';
import { FakeScheduler, flush } from '../../support/fake-scheduler.js';

const TIMEOUT_MS = 40;

/** How the server answers each path; the requests it saw, by path. */
const routes = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>();
const seen: { path: string; method: string; body: string }[] = [];
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', method: req.method ?? '', body });
      (routes.get(req.url ?? '') ?? ((_, r) => r.writeHead(404).end('{}')))(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function call(path: string, method: HttpCall['method'] = 'GET', body?: string): HttpCall {
  return { method, url: new URL(path, base), headers: { accept: 'application/json' }, body };
}

describe('exchange', () => {
  it('sends method, headers and body, and reads the whole answer; the timer is disarmed', async () => {
    routes.set('/echo', (req, res) => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: req.headers['content-type'] ?? null }));
    });
    const scheduler = new FakeScheduler();
    const answer = await exchange(
      { ...call('/echo', 'POST', '{"a":"é"}'), headers: { 'content-type': 'application/json' } },
      { timeoutMs: TIMEOUT_MS, scheduler },
    );
    expect(answer).toEqual({ status: 201, text: '{"type":"application/json"}' });
    expect(seen.at(-1)).toEqual({ path: '/echo', method: 'POST', body: '{"a":"é"}' });
    expect(scheduler.pending()).toBe(0);
  });

  it('reads an error answer whole, for the caller to classify', async () => {
    routes.set('/gone', (_req, res) => res.writeHead(404).end('{"message":"not here"}'));
    const failed = await exchange(call('/gone'), {
      timeoutMs: TIMEOUT_MS,
      scheduler: new FakeScheduler(),
    });
    expect(failed).toEqual({ status: 404, text: '{"message":"not here"}' });
  });

  it('fails a call that is not over in time with a TimeoutError, its body read included', async () => {
    const stalled = { answering: false };
    routes.set('/stall', (_req, res) => {
      res.writeHead(200);
      res.write('{"items":[');
      stalled.answering = true;
    });
    const scheduler = new FakeScheduler();
    const failure = exchange(call('/stall'), { timeoutMs: TIMEOUT_MS, scheduler }).catch(
      (err: unknown) => err as Error,
    );
    while (!stalled.answering) await new Promise((resolve) => setImmediate(resolve));
    scheduler.advance(TIMEOUT_MS - 1);
    await flush();
    scheduler.advance(1);
    expect(await failure).toMatchObject({ name: 'TimeoutError' });
    expect(scheduler.pending()).toBe(0);
  });

  it('rejects with the transport error when the server cannot be reached; timer disarmed', async () => {
    const scheduler = new FakeScheduler();
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const failure = await exchange(
      { ...call('/'), url: new URL(`http://127.0.0.1:${String(port)}/`) },
      { timeoutMs: TIMEOUT_MS, scheduler },
    ).then(
      () => undefined,
      (err: unknown) => err as { code?: string },
    );
    expect(failure?.code).toBe('ECONNREFUSED');
    expect(scheduler.pending()).toBe(0);
  });
});

describe('shouldRetry', () => {
  const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
  const pooled = (method: HttpCall['method']): HttpCall => ({
    ...call('/'),
    method,
    agent: new PooledAgent(),
  });
  const live = new AbortController().signal;

  it('retries a pooled GET on ECONNRESET or EPIPE, found on the error or its cause', () => {
    expect(shouldRetry(pooled('GET'), live, reset)).toBe(true);
    const pipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    expect(shouldRetry(pooled('GET'), live, pipe)).toBe(true);
    expect(shouldRetry(pooled('GET'), live, new Error('wrapped', { cause: reset }))).toBe(true);
  });

  it('never retries writes, other errors, unpooled agents or aborted calls', () => {
    expect(shouldRetry(pooled('PUT'), live, reset)).toBe(false);
    expect(shouldRetry(pooled('POST'), live, reset)).toBe(false);
    const refused = Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
    expect(shouldRetry(pooled('GET'), live, refused)).toBe(false);
    expect(shouldRetry({ ...call('/'), agent: new HttpsAgent() }, live, reset)).toBe(false);
    expect(shouldRetry(pooled('GET'), AbortSignal.abort(), reset)).toBe(false);
  });
});
