/**
 * A failed train release rolls back what it promoted, on kube-sim, with one gateway and with two
 * replicas: api and web (web after api) go to prod together with `rollbackOnFailure`; api is
 * promoted and runs its release revision, web's promotion fails for good, the release fails, and
 * api goes back to the revision it ran before, once, marked as the train's automatic rollback,
 * with no hold on the revision; the train's status names api as rolled back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnvironmentStatus } from '../../src/pipeline/pipeline-resource.js';
import {
  eventually,
  launchGateway,
  PIPELINE_API,
  startTestFleet,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import { NotifyReceiver } from '../support/notify-receiver.js';
import {
  applyTrain,
  createTrainApps,
  promotionsInto,
  rollApp,
  trainStatus,
} from '../support/train-rig.js';

const APPS = ['api', 'web'] as const;
const WAIT = { timeoutMs: 20_000 };

/** `app`'s stored status in `env`. */
function memberIn(fleet: TestFleet, ns: string, app: string, env: string) {
  const object = fleet.management.get(PIPELINE_API, 'Pipeline', ns, app) as
    { status?: { environments?: Record<string, EnvironmentStatus> } } | undefined;
  return object?.status?.environments?.[env];
}

describe.each([1, 2])('a failed train release with %i replica(s)', (count) => {
  let fleet: TestFleet;
  let replicas: RunningGateway[];
  // Down for the whole file: web's webhook promotion fails, and one attempt is all it gets.
  const receiver = new NotifyReceiver();

  beforeAll(async () => {
    [fleet] = await Promise.all([startTestFleet(), receiver.start()]);
    const promotion = {
      retry: { maxAttempts: 1 },
      webhooks: {
        deployer: { url: receiver.url, secret: { value: 'whsec_cm9sbGJhY2s=' }, timeoutMs: 2_000 },
      },
    };
    replicas = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        launchGateway(fleet, { instanceId: `rollback-${String(i)}`, config: { promotion } }),
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await Promise.all([fleet.close(), receiver.close()]);
  });

  async function resync(): Promise<void> {
    await Promise.all(replicas.map((r) => r.gateway.resync()));
  }

  const release = (ns: string) =>
    trainStatus(fleet, ns, 'release')?.environments?.find((e) => e.name === 'prod')?.release;

  it('rolls api back to the revision it ran before, once, when web fails', async () => {
    const ns = `train-rollback-${String(count)}`;
    createTrainApps(fleet, ns, APPS, {}, { web: { webhook: { endpoint: 'deployer' } } });
    applyTrain(fleet, ns, 'release', {
      members: [{ name: 'api' }, { name: 'web', dependsOn: ['api'] }],
      environments: ['prod'],
      rollbackOnFailure: true,
    });
    await resync();
    await eventually(() => {
      expect(release(ns)).toMatchObject({ state: 'Succeeded' });
      // prod has run 6.5.0 healthy: what api goes back to.
      expect(memberIn(fleet, ns, 'api', 'prod')?.verified?.map((v) => v.revision)).toContain(
        '6.5.0',
      );
    }, WAIT);

    for (const env of ['dev', 'staging'])
      for (const app of APPS) rollApp(fleet, ns, env, app, '6.6.0');
    await resync();
    await eventually(() => {
      expect(promotionsInto(fleet, ns, 'prod')).toEqual([['api', '6.6.0']]);
    }, WAIT);
    // Flux applies api's promotion; web goes next, and its webhook is refused.
    rollApp(fleet, ns, 'prod', 'api', '6.6.0');
    await resync();
    await eventually(() => {
      expect(release(ns)).toMatchObject({ state: 'Failed', waitingFor: ['web'] });
    }, WAIT);
    expect(receiver.attempts).toHaveLength(1);

    // api goes back to 6.5.0: the train's automatic rollback, with no hold on 6.6.0.
    await resync();
    await eventually(() => {
      const api = memberIn(fleet, ns, 'api', 'prod');
      expect(api?.promotion).toMatchObject({
        revision: '6.5.0',
        phase: 'Succeeded',
        rollback: { from: '6.6.0', automatic: true, train: `${ns}/release` },
      });
      expect(api?.promotion?.rollback?.reason).toContain(`${ns}/release`);
      expect(api?.holds ?? []).toEqual([]);
      expect(api?.history?.at(-1)).toMatchObject({
        revision: '6.5.0',
        rollback: { automatic: true },
      });
    }, WAIT);
    await eventually(() => {
      expect(release(ns)).toMatchObject({ state: 'Failed', rolledBack: ['api'] });
    }, WAIT);

    // Flux applies the rollback; passes go on, and nothing is rolled back or promoted again.
    rollApp(fleet, ns, 'prod', 'api', '6.5.0');
    for (let i = 0; i < 3; i++) await resync();
    await Promise.all(replicas.map((r) => r.gateway.idle()));
    expect(promotionsInto(fleet, ns, 'prod')).toEqual([
      ['api', '6.6.0'],
      ['api', '6.5.0'],
    ]);
    expect(memberIn(fleet, ns, 'web', 'prod')?.promotion).toMatchObject({
      revision: '6.6.0',
      phase: 'Failed',
    });
  }, 90_000);
});
