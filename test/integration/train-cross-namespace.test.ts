/**
 * A release train with a member of another namespace, allowed by the operator
 * (trains.crossNamespace), on kube-sim with one gateway and with two replicas: the train in shop
 * names platform/api, web after it; prod takes the combination verified together in staging,
 * api first, each once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { combinationDigest } from '../../src/trains/combination-digest.js';
import {
  eventually,
  launchGateway,
  startTestFleet,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import {
  applyTrain,
  createTrainApps,
  promotionsInto,
  rollApp,
  trainStatus,
} from '../support/train-rig.js';

const WAIT = { timeoutMs: 20_000 };

describe.each([1, 2])('a train across namespaces on kube-sim with %i replica(s)', (count) => {
  let fleet: TestFleet;
  let replicas: RunningGateway[];
  const shop = `shop-${String(count)}`;
  const platform = `platform-${String(count)}`;

  beforeAll(async () => {
    fleet = await startTestFleet();
    replicas = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        launchGateway(fleet, {
          instanceId: `replica-${String(i)}`,
          config: { trains: { crossNamespace: [shop] } },
        }),
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await fleet.close();
  });

  it('promotes platform/api, then web, as one combination', async () => {
    createTrainApps(fleet, platform, ['api']);
    createTrainApps(fleet, shop, ['web']);
    const api = `${platform}/api`;
    applyTrain(fleet, shop, 'release', {
      members: [{ name: api }, { name: 'web', dependsOn: [api] }],
      environments: ['prod'],
    });
    const release = () =>
      trainStatus(fleet, shop, 'release')?.environments?.find((e) => e.name === 'prod')?.release;
    await eventually(() => {
      expect(trainStatus(fleet, shop, 'release')?.conditions?.[0]).toMatchObject({
        status: 'True',
      });
      expect(release()).toMatchObject({ state: 'Succeeded' });
    }, WAIT);

    for (const env of ['dev', 'staging']) {
      rollApp(fleet, platform, env, 'api', '6.6.0');
      rollApp(fleet, shop, env, 'web', '6.6.0');
    }
    await Promise.all(replicas.map((r) => r.gateway.resync()));
    const digest = combinationDigest({ [api]: '6.6.0', web: '6.6.0' });
    await eventually(() => {
      expect(release()).toMatchObject({ digest, state: 'Promoting' });
      expect(promotionsInto(fleet, platform, 'prod')).toEqual([['api', '6.6.0']]);
    }, WAIT);
    await Promise.all(replicas.map((r) => r.gateway.resync()));
    await eventually(() => {
      for (const r of replicas) {
        const web = r.gateway.view({ namespace: shop, name: 'web' });
        expect(web?.decisions.find((d) => d.environment === 'prod')?.reason).toBe('TrainOrder');
      }
    }, WAIT);
    expect(promotionsInto(fleet, shop, 'prod')).toEqual([]);

    rollApp(fleet, platform, 'prod', 'api', '6.6.0');
    await Promise.all(replicas.map((r) => r.gateway.resync()));
    await eventually(() => {
      expect(promotionsInto(fleet, shop, 'prod')).toEqual([['web', '6.6.0']]);
    }, WAIT);
    rollApp(fleet, shop, 'prod', 'web', '6.6.0');
    await Promise.all(replicas.map((r) => r.gateway.resync()));
    await eventually(() => {
      expect(release()).toMatchObject({ digest, state: 'Succeeded' });
    }, WAIT);
    expect(promotionsInto(fleet, platform, 'prod')).toHaveLength(1);
  });
});
