/**
 * A member failing mid-train, end to end on kube-sim with one gateway and with two replicas:
 * three members in a line (web after api, worker after web); api is promoted into prod and runs
 * there, then web's promotion (a webhook to a deployer that is down, one attempt) fails. The
 * release fails naming web, worker is never started, and the PromotionAlert subscribed to the
 * namespace gets one TrainFailed over a real socket, naming web and why and worker as stopped,
 * the same body on every attempt. An alert the replicas learn of only after the release failed
 * (its listing refused meanwhile) still gets that TrainFailed, at the time the release failed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { combinationDigest } from '../../src/trains/combination-digest.js';
import type { TrainSpec } from '../../src/trains/train-resource.js';
import {
  eventually,
  launchGateway,
  startTestFleet,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import { NotifyReceiver, subscribeAlert } from '../support/notify-receiver.js';
import { readTokens, type ReadTokens } from '../support/preview.js';
import {
  applyTrain,
  createTrainApps,
  promotionsInto,
  rollApp,
  trainStatus,
} from '../support/train-rig.js';

const APPS = ['api', 'web', 'worker'] as const;
const WAIT = { timeoutMs: 30_000 };

/** What the receiver reads of a TrainFailed body (generic format). */
interface TrainEventBody {
  type: string;
  data: {
    type: string;
    pipeline: { namespace: string; name: string };
    environment: string;
    revision: string;
    reason: string;
    message: string;
    train: {
      digest: string;
      members: Record<string, string>;
      failed?: { member: string; revision: string; reason: string }[];
      stopped?: string[];
    };
  };
}

describe.each([1, 2])('a member failing mid-train with %i replica(s)', (count) => {
  let fleet: TestFleet;
  let replicas: RunningGateway[];
  let tokens: ReadTokens;
  // prod's deployer for web: down for the whole file, so web's one attempt fails.
  const deployer = new NotifyReceiver();
  const alerts = new NotifyReceiver();

  beforeAll(async () => {
    [fleet, tokens] = await Promise.all([
      startTestFleet(),
      readTokens(),
      deployer.start(),
      alerts.start(),
    ]);
    alerts.up = true;
    const promotion = {
      retry: { maxAttempts: 1 },
      webhooks: {
        deployer: { url: deployer.url, secret: { value: 'whsec_dHJhaW5z' }, timeoutMs: 2_000 },
      },
    };
    const notifications = {
      intervalMs: 100,
      retryBaseMs: 50,
      retryMaxMs: 200,
      allowedUrlPrefixes: [alerts.url],
    };
    replicas = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        launchGateway(fleet, {
          instanceId: `replica-${String(i)}`,
          config: { promotion, notifications, jwt: tokens.config },
        }),
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await Promise.all([fleet.close(), deployer.close(), alerts.close()]);
  });

  async function resync(): Promise<void> {
    await Promise.all(replicas.map((r) => r.gateway.resync()));
  }

  const release = (ns: string) =>
    trainStatus(fleet, ns, 'release')?.environments?.find((e) => e.name === 'prod')?.release;

  /**
   * Applies the train of `members` into prod in `ns` (web's deployer is the one that is down) and
   * waits for its first release, what every member already runs, and until every replica shows
   * the train at its door: a replica whose last listing of the trains (at most 250 ms old)
   * predates the train would confirm a member's promotion without it.
   */
  async function startTrain(ns: string, members: TrainSpec['members']): Promise<void> {
    createTrainApps(fleet, ns, APPS, {}, { web: { webhook: { endpoint: 'deployer' } } });
    applyTrain(fleet, ns, 'release', { members, environments: ['prod'] });
    await resync();
    await eventually(() => {
      expect(release(ns)).toMatchObject({ state: 'Succeeded', reason: 'Arrived' });
    }, WAIT);
    const token = await tokens.token([`${ns}/*`]);
    await eventually(async () => {
      for (const r of replicas) {
        const res = await fetch(`${r.url}/v1/trains/${ns}/release`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(res.status).toBe(200);
      }
    }, WAIT);
  }

  function told(type: string): { id: string; body: TrainEventBody }[] {
    return alerts.accepted
      .map((a) => ({ id: a.id, body: JSON.parse(a.body) as TrainEventBody }))
      .filter((a) => a.body.data.type === type);
  }

  it('stops the members not yet started and delivers one TrainFailed', async () => {
    const ns = `train-alerts-${String(count)}`;
    await startTrain(ns, [
      { name: 'api' },
      { name: 'web', dependsOn: ['api'] },
      { name: 'worker', dependsOn: ['web'] },
    ]);
    subscribeAlert(fleet.management, ns, alerts.url, ['TrainFailed', 'TrainPromoted']);
    for (const env of ['dev', 'staging'])
      for (const app of APPS) rollApp(fleet, ns, env, app, '6.6.0');
    await resync();
    const digest = combinationDigest({ api: '6.6.0', web: '6.6.0', worker: '6.6.0' });

    // api goes first and arrives; then web's one attempt is refused.
    await eventually(() => {
      expect(release(ns)).toMatchObject({ digest, state: 'Promoting' });
      expect(promotionsInto(fleet, ns, 'prod')).toEqual([['api', '6.6.0']]);
    }, WAIT);
    rollApp(fleet, ns, 'prod', 'api', '6.6.0');
    await resync();
    await eventually(() => {
      expect(release(ns)).toMatchObject({ state: 'Failed', waitingFor: ['web'] });
    }, WAIT);
    expect(deployer.attempts).toHaveLength(1);

    // The receiver is told once: the release, web and why, worker stopped.
    await eventually(() => {
      expect(told('TrainFailed')).toHaveLength(1);
    }, WAIT);
    const [event] = told('TrainFailed');
    expect(event?.body.type).toBe('train.failed');
    expect(event?.body.data).toMatchObject({
      pipeline: { namespace: ns, name: 'release' },
      environment: 'prod',
      revision: digest,
      reason: 'MemberFailed',
      train: {
        digest,
        members: { api: '6.6.0', web: '6.6.0', worker: '6.6.0' },
        failed: [{ member: 'web', revision: '6.6.0' }],
        stopped: ['worker'],
      },
    });
    expect(event?.body.data.train.failed?.[0]?.reason).not.toBe('');
    expect(told('TrainPromoted')).toEqual([]);

    // worker stays held: never promoted, however often the members are looked at again.
    await resync();
    await eventually(() => {
      for (const r of replicas) {
        const view = r.gateway.view({ namespace: ns, name: 'worker' });
        const prod = view?.decisions.find((d) => d.environment === 'prod');
        expect(prod?.reason).toBe('TrainGates');
      }
    }, WAIT);
    expect(promotionsInto(fleet, ns, 'prod').map(([app]) => app)).not.toContain('worker');
    // Every attempt of the one event carried the same body.
    const bodies = alerts.attempts.filter((a) => a.id === event?.id).map((a) => a.body);
    expect(new Set(bodies).size).toBe(1);
    const stored = trainStatus(fleet, ns, 'release')?.outbox ?? [];
    expect(stored.filter((e) => e.type === 'TrainFailed')).toHaveLength(1);
  });

  it('delivers the TrainFailed of a release that failed before the alert was known', async () => {
    const ns = `train-late-alert-${String(count)}`;
    await startTrain(ns, [
      { name: 'api' },
      { name: 'web', dependsOn: ['api'] },
      { name: 'worker' },
    ]);
    // The alert exists from here on, but no replica can list it until the fault is cleared.
    await fleet.management.faults.set({
      errors: [{ verbs: ['list'], resources: ['promotionalerts'], rate: 1, code: 503 }],
    });
    subscribeAlert(fleet.management, ns, alerts.url, ['TrainFailed']);
    for (const env of ['dev', 'staging'])
      for (const app of APPS) rollApp(fleet, ns, env, app, '6.7.0');
    await resync();
    await eventually(async () => {
      await resync();
      expect(promotionsInto(fleet, ns, 'prod').map(([app]) => app)).toContain('api');
    }, WAIT);
    rollApp(fleet, ns, 'prod', 'api', '6.7.0');
    await eventually(
      async () => {
        await resync();
        expect(release(ns)).toMatchObject({ state: 'Failed', waitingFor: ['web'] });
      },
      { ...WAIT, intervalMs: 250 },
    );
    const failedAt = release(ns)?.finishedAt;
    expect(failedAt).toBeDefined();
    // The write that ended the release knew no alert that wanted it: nothing recorded.
    expect(trainStatus(fleet, ns, 'release')?.outbox ?? []).toEqual([]);

    await fleet.management.faults.clear('errors');
    await eventually(
      async () => {
        await resync();
        expect(
          told('TrainFailed').filter((e) => e.body.data.pipeline.namespace === ns),
        ).toHaveLength(1);
      },
      { ...WAIT, intervalMs: 500 },
    );
    const stored = trainStatus(fleet, ns, 'release')?.outbox ?? [];
    expect(stored.map((e) => [e.type, e.time])).toEqual([['TrainFailed', failedAt]]);
    await resync();
    expect(trainStatus(fleet, ns, 'release')?.outbox).toEqual(stored);
  });
});
