/**
 * Readiness tells the truth: a gateway is Ready only once the management cluster answered and
 * the Pipelines are loaded, and /readyz says what is missing when it is not. A pod whose
 * management credentials are refused, or whose API server is unreachable, never turns Ready.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  GATEWAY_USER,
  launchGateway,
  startTestFleet,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';

let fleet: TestFleet;

beforeAll(async () => {
  fleet = await startTestFleet();
});
afterAll(async () => {
  await fleet.close();
});

interface Readiness {
  status: number;
  body: { status?: string; code?: string; reasons?: string[] };
}

async function readyz(gateway: RunningGateway): Promise<Readiness> {
  const response = await fetch(`${gateway.url}/readyz`);
  return { status: response.status, body: (await response.json()) as Readiness['body'] };
}

/** How many times the gateway has logged its Pipeline watch failing (each restart that failed). */
function watchFailures(lines: readonly string[]): number {
  return lines.filter((l) => l.includes('Pipelines in the management cluster failed')).length;
}

async function notReadyWith(kubeconfig: string, expected: RegExp): Promise<void> {
  const logLines: string[] = [];
  const gateway = await launchGateway(fleet, {
    instanceId: 'readiness',
    start: false,
    managementKubeconfig: kubeconfig,
    // Debug: a failure that repeats the last one is logged at debug only.
    logLines,
    logLevel: 'debug',
  });
  try {
    await gateway.gateway.start();
    // After the watch's first failure, and again after its restart failed too, with a pass
    // run each time (the first pass runs even without Pipelines): never Ready, and says why.
    for (const failed of [1, 2]) {
      await eventually(() => watchFailures(logLines) >= failed);
      await gateway.gateway.resync();
      const answer = await readyz(gateway);
      expect(answer.status).toBe(503);
      expect(answer.body.code).toBe('NotReady');
      expect(answer.body.reasons?.[0]).toMatch(expected);
    }
    expect(gateway.gateway.status().ready).toBe(false);
  } finally {
    await gateway.close();
  }
}

describe('readiness', () => {
  it('is never Ready with management credentials the API server refuses, and says why', async () => {
    const good = fleet.management.kubeconfig(GATEWAY_USER);
    const token = fleet.management.tokenFor(GATEWAY_USER);
    const refused = good.replace(token, 'not-a-valid-token');
    expect(refused).not.toBe(good);
    await notReadyWith(refused, /management cluster failed: .*rejected the gateway credentials/);
  });

  it('is never Ready when the management API server is unreachable, and says so', async () => {
    const good = fleet.management.kubeconfig(GATEWAY_USER);
    const unreachable = good.replace(
      /server: https:\/\/127\.0\.0\.1:\d+/,
      'server: https://127.0.0.1:9',
    );
    expect(unreachable).not.toBe(good);
    await notReadyWith(unreachable, /management cluster failed: the cluster is unreachable/);
  });

  it('turns Ready once the Pipelines are listed with good credentials', async () => {
    const gateway = await launchGateway(fleet, { instanceId: 'readiness-ok', start: false });
    try {
      expect((await readyz(gateway)).body.reasons?.[0]).toBe('Pipelines are not loaded yet');
      await gateway.gateway.start();
      await eventually(async () => {
        expect(await readyz(gateway)).toEqual({ status: 200, body: { status: 'ready' } });
      });
    } finally {
      await gateway.close();
    }
  });
});
