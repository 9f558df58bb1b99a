import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/auth/hmac.js';
import { fixture, post, startGateway, VECTOR } from '../support/ingress-harness.js';
import type { Gateway } from '../support/ingress-harness.js';

describe('operational endpoints and error mapping', () => {
  let gw: Gateway;
  let readiness = { ready: false, reasons: ['ClusterCacheNotSynced', 'PipelinesNotListed'] };
  const body = fixture('03-helmrelease-upgrade-succeeded.forwarded.json');

  beforeAll(async () => {
    gw = await startGateway({
      readiness: () => readiness,
      offer: (key) => {
        if (key.name === 'boom') throw new Error('kaboom: secret=hunter2 at /internal/path');
        return 'queued';
      },
    });
  });
  afterAll(async () => {
    await gw.close();
  });

  it('GET /healthz is always 200', async () => {
    const res = await fetch(`${gw.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz is 503 with reasons, then 200 once ready', async () => {
    const notReady = await fetch(`${gw.url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toEqual({
      code: 'NotReady',
      message: 'The gateway is not ready.',
      reasons: ['ClusterCacheNotSynced', 'PipelinesNotListed'],
    });
    readiness = { ready: true, reasons: [] };
    const ready = await fetch(`${gw.url}/readyz`);
    expect(ready.status).toBe(200);
  });

  it('GET /metrics exposes counters by route pattern, never by URL', async () => {
    await post(`${gw.url}/v1/events/dev`, body, { 'x-signature': signBody(body, VECTOR.key) });
    await post(`${gw.url}/v1/events/no-such-cluster-xyz`, body);
    const res = await fetch(`${gw.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toMatch(/promotion_gateway_events_received_total\{outcome="accepted"\} [1-9]/);
    expect(text).toMatch(
      /promotion_gateway_events_received_total\{outcome="unauthenticated"\} [1-9]/,
    );
    expect(text).toMatch(
      /promotion_gateway_http_requests_total\{method="POST",route="\/v1\/events\/:cluster",status="202"\} [1-9]/,
    );
    expect(text).not.toContain('no-such-cluster-xyz');
  });

  it('a throwing dependency yields a 500 that reveals nothing, and the detail is logged', async () => {
    const boom = Buffer.from(
      JSON.stringify({ involvedObject: { kind: 'HelmRelease', name: 'boom', namespace: 'apps' } }),
    );
    const res = await post(`${gw.url}/v1/events/dev`, boom, {
      'x-signature': signBody(boom, VECTOR.key),
    });
    expect(res.status).toBe(500);
    expect(await res.text()).toBe(JSON.stringify({ code: 'Internal', message: 'Internal error.' }));
    expect(gw.logs.some((line) => line.includes('kaboom'))).toBe(true);
  });

  it('unknown routes and methods answer the registry 404', async () => {
    for (const res of [await fetch(`${gw.url}/nope`), await fetch(`${gw.url}/v1/events/dev`)]) {
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ code: 'NotFound', message: 'No such resource.' });
    }
  });

  it('a malformed URL answers the registry 400', async () => {
    const res = await fetch(`${gw.url}/v1/pipelines/%E0%A4%A/x`);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ code: 'BadRequest', message: 'The request is malformed.' });
  });

  it('an unparseable HTTP message still gets a registry 400 body', async () => {
    const port = Number(new URL(gw.url).port);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GARBAGE\r\n\r\n'));
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
      socket.on('close', () => {
        resolve(received);
      });
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(
      raw.endsWith(JSON.stringify({ code: 'BadRequest', message: 'The request is malformed.' })),
    ).toBe(true);
  });
});

describe('two gateways in one process', () => {
  it('keep separate metrics registries', async () => {
    const a = await startGateway();
    const b = await startGateway();
    try {
      await fetch(`${a.url}/healthz`);
      expect(await a.metricsText()).toMatch(/route="\/healthz",status="200"\} 1/);
      expect(await b.metricsText()).not.toContain('route="/healthz"');
    } finally {
      await a.close();
      await b.close();
    }
  });
});
