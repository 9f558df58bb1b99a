/**
 * Release trains end to end on kube-sim, with one gateway and with two replicas: a train of
 * three Pipelines (web after api) promotes into prod only the combination its members were seen
 * running healthy together in staging, once every member's gates are met, in dependsOn order,
 * each member promoted once; a staging where one member is not healthy promotes nothing; a
 * member whose promotion fails stops the members not yet started, and the train says so.
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
import { NotifyReceiver } from '../support/notify-receiver.js';
import {
  applyTrain,
  createTrainApps,
  promotionsInto,
  rollApp,
  trainStatus,
} from '../support/train-rig.js';

const APPS = ['api', 'web', 'worker'] as const;
const WAIT = { timeoutMs: 20_000 };

describe.each([1, 2])('a release train on kube-sim with %i replica(s)', (count) => {
  let fleet: TestFleet;
  let replicas: RunningGateway[];
  // Down for the whole file: a webhook promotion to it fails, and one attempt is all it gets.
  const receiver = new NotifyReceiver();

  beforeAll(async () => {
    [fleet] = await Promise.all([startTestFleet(), receiver.start()]);
    const promotion = {
      retry: { maxAttempts: 1 },
      webhooks: {
        deployer: { url: receiver.url, secret: { value: 'whsec_dHJhaW5z' }, timeoutMs: 2_000 },
      },
    };
    replicas = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        launchGateway(fleet, { instanceId: `replica-${String(i)}`, config: { promotion } }),
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await Promise.all([fleet.close(), receiver.close()]);
  });

  /** Every replica reads every target again (as the periodic resync would). */
  async function resync(): Promise<void> {
    await Promise.all(replicas.map((r) => r.gateway.resync()));
  }

  function prodDecision(ns: string, app: string) {
    const views = replicas.map((r) => r.gateway.view({ namespace: ns, name: app }));
    return views.map((v) => v?.decisions.find((d) => d.environment === 'prod'));
  }

  const release = (ns: string) =>
    trainStatus(fleet, ns, 'release')?.environments?.find((e) => e.name === 'prod')?.release;

  it('promotes the combination verified together in staging, api before web, each once', async () => {
    const ns = `train-${String(count)}`;
    createTrainApps(fleet, ns, APPS);
    applyTrain(fleet, ns, 'release', {
      members: [{ name: 'api' }, { name: 'web', dependsOn: ['api'] }, { name: 'worker' }],
      environments: ['prod'],
    });
    await resync();
    // What every member already runs is recorded as the train's release, promoting nothing.
    await eventually(() => {
      expect(release(ns)).toMatchObject({ state: 'Succeeded', reason: 'Arrived' });
    }, WAIT);

    // api and web move on in staging; worker's rollout there fails: nothing was seen together.
    for (const env of ['dev', 'staging']) {
      rollApp(fleet, ns, env, 'api', '6.6.0');
      rollApp(fleet, ns, env, 'web', '6.6.0');
      rollApp(fleet, ns, env, 'worker', '6.6.0', env === 'staging');
    }
    await resync();
    await eventually(() => {
      for (const d of prodDecision(ns, 'api')) expect(d?.reason).toBe('TrainCombination');
    }, WAIT);
    expect(promotionsInto(fleet, ns, 'prod')).toEqual([]);
    expect(release(ns)?.members).toEqual({ api: '6.5.0', web: '6.5.0', worker: '6.5.0' });

    // worker runs 6.6.0 healthy in staging: the combination is seen and promoted, web after api.
    rollApp(fleet, ns, 'staging', 'worker', '6.6.0');
    await resync();
    const digest = combinationDigest({ api: '6.6.0', web: '6.6.0', worker: '6.6.0' });
    await eventually(() => {
      expect(release(ns)).toMatchObject({ digest, state: 'Promoting' });
      expect(
        promotionsInto(fleet, ns, 'prod')
          .map(([app]) => app)
          .sort(),
      ).toEqual(['api', 'worker']);
    }, WAIT);
    await resync();
    await eventually(() => {
      for (const d of prodDecision(ns, 'web')) expect(d?.reason).toBe('TrainOrder');
    }, WAIT);
    expect(promotionsInto(fleet, ns, 'prod').map(([app]) => app)).not.toContain('web');

    // Flux applies the two promotions; then web goes.
    rollApp(fleet, ns, 'prod', 'api', '6.6.0');
    rollApp(fleet, ns, 'prod', 'worker', '6.6.0');
    await resync();
    await eventually(() => {
      expect(promotionsInto(fleet, ns, 'prod').map(([app]) => app)).toContain('web');
    }, WAIT);
    rollApp(fleet, ns, 'prod', 'web', '6.6.0');
    await resync();
    await eventually(() => {
      expect(release(ns)).toMatchObject({ digest, state: 'Succeeded', reason: 'Arrived' });
    }, WAIT);

    // One promotion per member, the combination's revisions, web's last.
    const promoted = promotionsInto(fleet, ns, 'prod');
    expect(promoted).toHaveLength(3);
    expect(promoted.at(-1)).toEqual(['web', '6.6.0']);
    for (const [, version] of promoted) expect(version).toBe('6.6.0');
    const observed = trainStatus(fleet, ns, 'release')?.environments?.[0]?.observed ?? [];
    expect(observed[0]).toMatchObject({ digest });
    // The Event follows the status write that ended the release.
    await eventually(() => {
      const told = (fleet.management.list('v1', 'Event', ns) as { reason?: string }[]).filter(
        (e) => e.reason === 'TrainPromoted',
      );
      expect(told).toHaveLength(1);
    }, WAIT);
  });

  it('stops the members not yet started when one fails, and records TrainFailed', async () => {
    const ns = `train-fail-${String(count)}`;
    createTrainApps(fleet, ns, APPS, {}, { api: { webhook: { endpoint: 'deployer' } } });
    applyTrain(fleet, ns, 'release', {
      members: [{ name: 'api' }, { name: 'web', dependsOn: ['api'] }, { name: 'worker' }],
      environments: ['prod'],
    });
    await resync();
    await eventually(() => {
      expect(release(ns)).toMatchObject({ state: 'Succeeded' });
    }, WAIT);
    for (const env of ['dev', 'staging'])
      for (const app of APPS) rollApp(fleet, ns, env, app, '6.6.0');
    await resync();

    // api's webhook is refused (its one attempt): the release fails, naming api.
    await eventually(() => {
      expect(release(ns)).toMatchObject({
        state: 'Failed',
        reason: 'MemberFailed',
        waitingFor: ['api'],
      });
    }, WAIT);
    expect(receiver.attempts).toHaveLength(1);
    await resync();
    await eventually(() => {
      for (const d of prodDecision(ns, 'web')) expect(d?.reason).toBe('TrainGates');
    }, WAIT);
    expect(promotionsInto(fleet, ns, 'prod').map(([app]) => app)).not.toContain('web');
    await eventually(() => {
      const told = (fleet.management.list('v1', 'Event', ns) as { reason?: string }[]).filter(
        (e) => e.reason === 'TrainFailed',
      );
      expect(told).toHaveLength(1);
    }, WAIT);
  });
});
