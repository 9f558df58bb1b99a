/**
 * `server.metricsPort`: /metrics moves to a listener of its own, so the address Flux and
 * approvers reach does not expose it, and the metrics listener serves nothing else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  launchGateway,
  startTestFleet,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';

let fleet: TestFleet;
let gateway: RunningGateway;

beforeAll(async () => {
  fleet = await startTestFleet();
  gateway = await launchGateway(fleet, {
    config: { server: { host: '127.0.0.1', port: 0, metricsPort: 0 } },
  });
});
afterAll(async () => {
  await gateway.close();
  await fleet.close();
});

function metricsUrl(): string {
  const address = gateway.gateway.metricsAddress();
  if (address === undefined) throw new Error('no metrics listener');
  return address;
}

describe('metrics on a port of their own', () => {
  it('serves /metrics on the metrics port, with the gateway metrics', async () => {
    expect(metricsUrl()).not.toBe(gateway.url);
    const response = await fetch(`${metricsUrl()}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toContain('promotion_gateway_catalog_size');
  });

  it('answers 404 from the registry for /metrics on the main port', async () => {
    const response = await fetch(`${gateway.url}/metrics`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 'NotFound' });
  });

  it('serves nothing but /metrics on the metrics port, and the probes stay on the main port', async () => {
    for (const path of ['/readyz', '/healthz', '/v1/events/dev']) {
      const response = await fetch(`${metricsUrl()}${path}`);
      expect(response.status).toBe(404);
    }
    expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
  });
});
