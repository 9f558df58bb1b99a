/**
 * A shadow approval and a shadow check through the real gateway (one replica, then two) on
 * kube-sim: staging's promotion goes on, exactly once, though nobody approved it and its check
 * fails; the history entry records what would have held it, a ShadowHold event tells it to a
 * PromotionAlert once, and promotion_gateway_shadow_holds_total counts each gate once across
 * the replicas. Switched to Enforce, the approval holds the next revision.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PipelineEnvironment } from '../../src/pipeline/pipeline-resource.js';
import {
  APP_NAME,
  createApp,
  eventually,
  launchGateway,
  metricSum,
  pipelineOf,
  recordOf,
  startTestFleet,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import { NotifyReceiver, subscribeAlert } from '../support/notify-receiver.js';
import { announceRollout, promotionsTo } from '../support/policy-harness.js';

let fleet: TestFleet;
let service: Server;
let serviceUrl: string;
const receiver = new NotifyReceiver();

beforeAll(async () => {
  fleet = await startTestFleet();
  await receiver.start();
  receiver.up = true;
  // The check's service: the error budget is spent, whatever the revision.
  service = createServer((_req, res) => {
    res.writeHead(503, { 'content-type': 'application/json' }).end('{"ok":false}');
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  serviceUrl = `http://127.0.0.1:${String((service.address() as AddressInfo).port)}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => {
    service.close(() => {
      resolve();
    });
  });
  await Promise.all([fleet.close(), receiver.close()]);
});

/** Staging's promotion policy: notification strategy, a shadow check, the approval in `mode`. */
function stagingPolicy(mode: 'Shadow' | 'Enforce'): PipelineEnvironment['promotion'] {
  return {
    strategy: { notification: {} },
    approval: { minApprovals: 1, mode },
    checks: [{ name: 'slo', http: { url: `${serviceUrl}/slo/{{revision}}` }, mode: 'Shadow' }],
  };
}

function setStaging(ns: string, mode: 'Shadow' | 'Enforce'): void {
  const pipeline = pipelineOf(fleet, ns);
  const spec = structuredClone(pipeline.spec);
  const staging = spec.environments.find((e) => e.name === 'staging');
  if (staging === undefined) throw new Error('no staging');
  staging.promotion = stagingPolicy(mode);
  fleet.management.apply({ ...pipeline, metadata: { name: APP_NAME, namespace: ns }, spec });
}

function alertTo(ns: string): void {
  subscribeAlert(fleet.management, ns, receiver.url, ['ShadowHold']);
}

interface ShadowEvent {
  type: string;
  data: {
    pipeline: { namespace: string };
    environment: string;
    revision: string;
    wouldHold?: { gate: string; name: string; reason: string }[];
  };
}

/** The ShadowHold events `ns` got, each once (retries and replicas send the same id). */
function shadowEvents(ns: string): ShadowEvent[] {
  const byId = new Map<string, ShadowEvent>();
  for (const a of receiver.accepted) {
    const event = JSON.parse(a.body) as ShadowEvent;
    if (event.data.pipeline.namespace === ns) byId.set(a.id, event);
  }
  return [...byId.values()];
}

describe.each([1, 2])('a shadow approval and check with %i gateway replica(s)', (replicas) => {
  let gateways: RunningGateway[] = [];

  beforeAll(async () => {
    gateways = await Promise.all(
      Array.from({ length: replicas }, (_, i) =>
        launchGateway(fleet, {
          instanceId: `shadow-gates-${String(replicas)}-${String(i)}`,
          config: {
            checks: { http: { allowedUrlPrefixes: [`${serviceUrl}/slo/`] } },
            notifications: {
              intervalMs: 100,
              retryBaseMs: 50,
              retryMaxMs: 200,
              allowedUrlPrefixes: [receiver.url],
            },
          },
        }),
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.close()));
  });

  const counted = async (gate: string, name: string): Promise<number> => {
    let sum = 0;
    for (const g of gateways)
      sum += await metricSum(g.url, 'promotion_gateway_shadow_holds_total', { gate, name });
    return sum;
  };

  it('lets the promotion through, records and tells what would have held it, then holds once enforced', async () => {
    const ns = `shadow-gates-${String(replicas)}`;
    createApp(fleet, ns);
    setStaging(ns, 'Shadow');
    alertTo(ns);
    await waitSteady(fleet, gateways, ns);

    await announceRollout(fleet, gateways, ns, 'dev', '6.6.0');
    await eventually(() => {
      expect(recordOf(fleet, ns, 'staging')).toMatchObject({
        revision: '6.6.0',
        phase: 'Succeeded',
      });
    });
    for (const g of gateways) await g.gateway.idle();
    expect(promotionsTo(fleet, ns, 'staging')).toBe(1);
    const entry = pipelineOf(fleet, ns).status?.environments?.staging?.history?.at(-1);
    expect(entry?.revision).toBe('6.6.0');
    expect(entry?.wouldHold).toEqual([
      { gate: 'approval', name: 'approval', reason: 'ApprovalRequired' },
      { gate: 'check', name: 'slo', reason: expect.stringMatching(/^Check(Unknown|Failed)$/) },
    ]);
    await eventually(() => {
      expect(shadowEvents(ns)).toHaveLength(1);
    });
    expect(shadowEvents(ns)[0]?.data).toMatchObject({
      environment: 'staging',
      revision: '6.6.0',
      wouldHold: entry?.wouldHold,
    });
    await eventually(async () => {
      expect(await counted('approval', 'approval')).toBe(1);
      expect(await counted('check', 'slo')).toBe(1);
    });

    // Enforced, the approval holds the next revision, which is not promoted.
    await announceRollout(fleet, gateways, ns, 'staging', '6.6.0');
    setStaging(ns, 'Enforce');
    await eventually(() => {
      const mode = pipelineOf(fleet, ns).spec.environments[1]?.promotion?.approval?.mode;
      expect(mode).toBe('Enforce');
    });
    for (const g of gateways) await g.gateway.resync();
    await announceRollout(fleet, gateways, ns, 'dev', '6.7.0');
    await eventually(() => {
      expect(pipelineOf(fleet, ns).status?.environments?.staging?.waitingApproval).toMatchObject({
        revision: '6.7.0',
      });
    });
    for (const g of gateways) await g.gateway.idle();
    expect(promotionsTo(fleet, ns, 'staging')).toBe(1);
    expect(shadowEvents(ns)).toHaveLength(1);
  }, 60_000);
});
