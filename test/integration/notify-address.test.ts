/**
 * Where PromotionAlerts may deliver, through the real gateway on kube-sim. Under an allow-list
 * (`notifications.allowedUrlPrefixes`), with one replica and with two: an alert whose
 * spec.address the list does not admit is refused as InvalidSpec, one whose Secret's address it
 * does not admit as AddressNotAllowed, neither sends a request, and neither message quotes the
 * path or query that could hold its secret; an admitted alert on the same receiver is delivered
 * meanwhile. By default: loopback, metadata, private addresses, a name resolving to loopback and
 * the fleet's API servers are AddressNotAllowed, naming host and class only; an allow-list entry
 * opens an address it writes, never one a name resolves to.
 */
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { AlertStatus } from '../../src/notify/alert-resource.js';
import {
  createApp,
  eventually,
  launchGateway,
  startTestFleet,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import { announceRollout } from '../support/policy-harness.js';

const ALERT_API = 'notifications.promotion-gateway.dev/v1alpha1';
const NS = 'alert-address';
/** A short Lease: a new holder waits one Lease duration before it delivers (handover). */
const TIMINGS = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 200 };

let fleet: TestFleet | undefined;
let replicas: RunningGateway[] = [];
let server: Server | undefined;

afterEach(async () => {
  await Promise.all(replicas.map((r) => r.close()));
  replicas = [];
  await fleet?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/** A receiver answering 204 to everything; resolves to its base URL and the paths it was sent. */
async function receiver(): Promise<{ base: string; paths: string[] }> {
  const paths: string[] = [];
  server = createServer((req, res) => {
    paths.push(req.url ?? '');
    req.resume().on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { base: `http://127.0.0.1:${String(address.port)}`, paths };
}

function alert(f: TestFleet, name: string, spec: object): void {
  f.management.apply({
    apiVersion: ALERT_API,
    kind: 'PromotionAlert',
    metadata: { name, namespace: NS },
    // A new Lease holder first waits one delivery timeout (docs/notifications.md).
    spec: { timeout: '1s', ...spec },
  });
}

function ready(f: TestFleet, name: string) {
  const stored = f.management.get(ALERT_API, 'PromotionAlert', NS, name) as
    { status?: AlertStatus } | undefined;
  return stored?.status?.conditions?.find((c) => c.type === 'Ready');
}

describe.each([1, 2])('alert addresses under an allow-list, %i replica(s)', (count) => {
  it('delivers to admitted addresses only, and says why not without quoting a secret', async () => {
    const f = await startTestFleet();
    fleet = f;
    const { base, paths } = await receiver();
    createApp(f, NS);
    f.management.apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'private', namespace: NS },
      type: 'Opaque',
      data: { address: Buffer.from(`${base}/private/T0/s3cret-path`).toString('base64') },
    });
    const notifications = { intervalMs: 100, allowedUrlPrefixes: [`${base}/allowed/`] };
    replicas = await Promise.all(
      ['replica-a', 'replica-b']
        .slice(0, count)
        .map((instanceId) =>
          launchGateway(f, { instanceId, config: { notifications, leaderElection: TIMINGS } }),
        ),
    );
    await waitSteady(f, replicas, NS);
    alert(f, 'inside', { address: `${base}/allowed/hooks` });
    alert(f, 'outside', { address: `${base}/elsewhere/s3cret-path` });
    alert(f, 'hidden', { address: `${base}/allowed/hooks`, secretRef: { name: 'private' } });

    await announceRollout(f, replicas, NS, 'dev', '6.6.0');
    await eventually(() => {
      expect(paths.filter((p) => p === '/allowed/hooks').length).toBeGreaterThan(0);
      expect(ready(f, 'outside')?.reason).toBe('InvalidSpec');
      expect(ready(f, 'hidden')?.reason).toBe('AddressNotAllowed');
      // The delivery's outcome reaches the alert's status after the receiver has answered.
      expect(ready(f, 'inside')?.status).toBe('True');
    });
    expect(paths.every((p) => p === '/allowed/hooks')).toBe(true);
    const refusals = [ready(f, 'outside'), ready(f, 'hidden')];
    expect(refusals.map((c) => c?.status)).toEqual(['False', 'False']);
    for (const c of refusals) {
      expect(c?.message).toContain(
        `${base}/… is not admitted by the gateway's notifications.allowedUrlPrefixes`,
      );
      expect(c?.message).not.toMatch(/s3cret|elsewhere|private/);
    }
  });
});

describe('the default address policy, one replica', () => {
  const hint =
    'which only an entry of notifications.allowedUrlPrefixes naming that IP address opens';

  it('refuses internal addresses and the API servers, and sends them nothing', async () => {
    const f = await startTestFleet();
    fleet = f;
    const { base, paths } = await receiver();
    const port = new URL(base).port;
    createApp(f, NS);
    replicas = [await launchGateway(f, { config: { notifications: { intervalMs: 100 } } })];
    await waitSteady(f, replicas, NS);
    const refused: Record<string, [string, string]> = {
      loopback: [`${base}/hooks?token=s3cret`, `${base}/… is a loopback address`],
      metadata: [
        'http://169.254.169.254/latest/meta-data/s3cret',
        'http://169.254.169.254/… is a cloud metadata address',
      ],
      private: ['http://10.255.255.1/s3cret', 'http://10.255.255.1/… is a private address'],
      named: [
        `http://localhost:${port}/hooks/s3cret`,
        `http://localhost:${port}/… resolves to a loopback address`,
      ],
      management: [
        `${f.management.url}/api/v1/namespaces/s3cret`,
        `${f.management.url}/… is the API server of a cluster the gateway reaches`,
      ],
      dev: [
        `${f.dev.url}/apis/s3cret`,
        `${f.dev.url}/… is the API server of a cluster the gateway reaches`,
      ],
    };
    for (const [name, [address]] of Object.entries(refused)) alert(f, name, { address });

    await announceRollout(f, replicas, NS, 'dev', '6.6.0');
    await eventually(() => {
      for (const name of Object.keys(refused))
        expect(ready(f, name)?.reason, name).toBe('AddressNotAllowed');
    });
    for (const [name, [, sentence]] of Object.entries(refused)) {
      expect(ready(f, name)).toMatchObject({
        status: 'False',
        message: `address: ${sentence}, ${hint}`,
      });
      expect(ready(f, name)?.message).not.toContain('s3cret');
    }
    expect(paths).toEqual([]);
  });

  it('opens an address an allow-list entry writes, and no name', async () => {
    const f = await startTestFleet();
    fleet = f;
    const { base, paths } = await receiver();
    const named = `http://localhost:${new URL(base).port}`;
    createApp(f, NS);
    const notifications = {
      intervalMs: 100,
      allowedUrlPrefixes: [`${base}/hooks/`, `${named}/hooks/`],
    };
    replicas = [await launchGateway(f, { config: { notifications } })];
    await waitSteady(f, replicas, NS);
    alert(f, 'opened', { address: `${base}/hooks/in` });
    alert(f, 'named', { address: `${named}/hooks/in` });

    await announceRollout(f, replicas, NS, 'dev', '6.6.0');
    await eventually(() => {
      expect(ready(f, 'opened')?.status).toBe('True');
      expect(ready(f, 'named')?.reason).toBe('AddressNotAllowed');
    });
    expect(ready(f, 'named')?.message).toBe(
      `address: ${named}/… resolves to a loopback address, ${hint}`,
    );
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.every((p) => p === '/hooks/in')).toBe(true);
  });
});
