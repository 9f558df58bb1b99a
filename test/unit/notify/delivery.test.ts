import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { guardedFetch } from '../../../src/egress/guarded-fetch.js';
import { attemptDelivery, classify } from '../../../src/notify/delivery.js';
import { fakeResolver, testGuard } from '../../support/address-guard.js';
import { closedPort } from '../../support/net.js';

const NOW = Date.parse('2026-11-25T10:00:00Z');

describe('classify', () => {
  it.each([
    [200, {}, { kind: 'Delivered', detail: 'HTTP 200' }],
    [204, {}, { kind: 'Delivered', detail: 'HTTP 204' }],
    [410, {}, { kind: 'Gone', detail: 'HTTP 410' }],
    [302, {}, { kind: 'Failed', detail: 'HTTP 302 (redirects are not followed)' }],
    [503, {}, { kind: 'Failed', detail: 'HTTP 503' }],
    [429, { 'retry-after': '120' }, { kind: 'Failed', detail: 'HTTP 429', retryAfterMs: 120_000 }],
    [
      503,
      { 'retry-after': 'Wed, 25 Nov 2026 10:05:00 GMT' },
      { kind: 'Failed', detail: 'HTTP 503', retryAfterMs: 300_000 },
    ],
    [400, { 'retry-after': 'soon' }, { kind: 'Failed', detail: 'HTTP 400' }],
  ])('HTTP %i %j', (status, headers, expected) => {
    expect(classify({ status, headers: new Headers(headers) }, NOW)).toEqual(expected);
  });
});

describe('attemptDelivery', () => {
  it('names a refused connection by its code, never the URL', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${String(port)}/hook?token=s3cret`;
    const result = await attemptDelivery(
      { url, headers: {}, body: '{}', timeoutMs: 1_000 },
      fetch,
      () => NOW,
    );
    expect(result).toEqual({ kind: 'Failed', detail: 'network error ECONNREFUSED' });
  });

  it("sends a URL's user:password as Basic authorization, never in the URL", async () => {
    const seen: { url: string; authorization: string | null }[] = [];
    const fake = (url: string, init: RequestInit) => {
      seen.push({ url, authorization: new Headers(init.headers).get('authorization') });
      return Promise.resolve(new Response(null, { status: 204 }));
    };
    const request = {
      url: 'https://bot:p%40ss@hooks.example/x',
      headers: {},
      body: '{}',
      timeoutMs: 1_000,
    };
    expect(await attemptDelivery(request, fake, () => NOW)).toMatchObject({ kind: 'Delivered' });
    expect(seen).toEqual([
      {
        url: 'https://hooks.example/x',
        authorization: `Basic ${Buffer.from('bot:p@ss').toString('base64')}`,
      },
    ]);
  });

  it('gives up after the timeout and says so', async () => {
    const server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    try {
      const url = `http://127.0.0.1:${String(address.port)}/`;
      const result = await attemptDelivery(
        { url, headers: {}, body: '{}', timeoutMs: 100 },
        fetch,
        () => NOW,
      );
      expect(result).toEqual({ kind: 'Failed', detail: 'timeout' });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('attemptDelivery over the guarded fetch', () => {
  it('names a refused connection and a timeout as over fetch', async () => {
    const port = await closedPort();
    const closed = `http://127.0.0.1:${String(port)}/hook?token=s3cret`;
    const send = guardedFetch(testGuard([`http://127.0.0.1:${String(port)}/`]));
    const request = { url: closed, headers: {}, body: '{}', timeoutMs: 1_000 };
    expect(await attemptDelivery(request, send, () => NOW)).toEqual({
      kind: 'Failed',
      detail: 'network error ECONNREFUSED',
    });
    const server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const silent = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/`;
    try {
      const slow = { url: silent, headers: {}, body: '{}', timeoutMs: 100 };
      expect(await attemptDelivery(slow, guardedFetch(testGuard([silent])), () => NOW)).toEqual({
        kind: 'Failed',
        detail: 'timeout',
      });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('names a refused address by its class only, and sends nothing', async () => {
    let requests = 0;
    const server = createServer((_req, res) => {
      requests += 1;
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const resolve = fakeResolver({ 'hooks.test': ['127.0.0.1'] });
    try {
      const url = `http://hooks.test:${String(port)}/hook?token=s3cret`;
      const result = await attemptDelivery(
        { url, headers: {}, body: '{}', timeoutMs: 1_000 },
        guardedFetch(testGuard([], { resolve })),
        () => NOW,
      );
      expect(result).toEqual({
        kind: 'Failed',
        detail: 'address not allowed: resolves to a loopback address',
      });
      expect(requests).toBe(0);
    } finally {
      server.close();
    }
  });
});
