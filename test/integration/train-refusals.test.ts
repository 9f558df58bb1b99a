/**
 * Trains the gateway does not use, on kube-sim with one gateway and with two replicas: each gets
 * Ready=False with a named reason and a Warning Event (a dependsOn cycle, a member no Pipeline
 * is, a member of another namespace without the operator's leave, members sharing no gated
 * environment), and a Pipeline claimed by two trains stays with the older one (then the first
 * by name) on every replica: the second train is refused and gates nothing.
 */
import type { TrainMember } from '../../src/trains/train-resource.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  rollApp,
  trainStatus,
  TRAIN_API,
} from '../support/train-rig.js';

const WAIT = { timeoutMs: 20_000 };

describe.each([1, 2])('trains refused on kube-sim with %i replica(s)', (count) => {
  let fleet: TestFleet;
  let replicas: RunningGateway[];

  beforeAll(async () => {
    fleet = await startTestFleet();
    replicas = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        launchGateway(fleet, { instanceId: `replica-${String(i)}` }),
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await fleet.close();
  });

  const ready = (ns: string, name: string) =>
    trainStatus(fleet, ns, name)?.conditions?.find((c) => c.type === 'Ready');
  const warnings = (ns: string, name: string) =>
    (
      fleet.management.list('v1', 'Event', ns) as {
        reason?: string;
        type?: string;
        involvedObject?: { kind?: string; name?: string };
      }[]
    ).filter((e) => e.involvedObject?.kind === 'PromotionTrain' && e.involvedObject.name === name);

  const cases: [string, string, string, TrainMember[], string[]?][] = [
    [
      'cycle',
      'DependsOnCycle',
      'cycle',
      [
        { name: 'api', dependsOn: ['web'] },
        { name: 'web', dependsOn: ['api'] },
      ],
    ],
    ['missing', 'MembersMissing', 'gone', [{ name: 'api' }, { name: 'gone' }]],
    [
      'foreign',
      'CrossNamespaceNotAllowed',
      'elsewhere/api',
      [{ name: 'api' }, { name: 'elsewhere/api' }],
    ],
    ['sources', 'NoSharedEnvironment', 'share', [{ name: 'api' }, { name: 'web' }], ['dev']],
  ];
  it.each(cases)(
    'a %s train: Ready=False %s, told once',
    async (kind, reason, words, members, environments) => {
      const ns = `refused-${kind}-${String(count)}`;
      createTrainApps(fleet, ns, ['api', 'web']);
      applyTrain(fleet, ns, 'release', {
        members,
        ...(environments === undefined ? {} : { environments }),
      });
      await eventually(() => {
        expect(ready(ns, 'release')).toMatchObject({ status: 'False', reason });
        expect(ready(ns, 'release')?.message).toContain(words);
        expect(warnings(ns, 'release').map((e) => [e.type, e.reason])).toEqual([
          ['Warning', reason],
        ]);
      }, WAIT);
      // Later passes write nothing new and tell nothing again.
      const before = fleet.management.get(TRAIN_API, 'PromotionTrain', ns, 'release') as {
        metadata: { resourceVersion: string };
      };
      await Promise.all(replicas.map((r) => r.gateway.resync()));
      await new Promise((resolve) => setImmediate(resolve));
      await eventually(() => {
        const after = fleet.management.get(TRAIN_API, 'PromotionTrain', ns, 'release') as {
          metadata: { resourceVersion: string };
        };
        expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
      }, WAIT);
      expect(warnings(ns, 'release')).toHaveLength(1);
    },
  );

  it('leaves a Pipeline claimed by two trains with the older, on every replica', async () => {
    const ns = `two-trains-${String(count)}`;
    createTrainApps(fleet, ns, ['api', 'web', 'worker']);
    // z-older is created first: it is older, though last by name.
    applyTrain(fleet, ns, 'z-older', {
      members: [{ name: 'api' }, { name: 'web' }],
      environments: ['prod'],
    });
    await eventually(() => {
      expect(ready(ns, 'z-older')).toMatchObject({ status: 'True' });
    }, WAIT);
    const created = (name: string) =>
      (
        fleet.management.get(TRAIN_API, 'PromotionTrain', ns, name) as {
          metadata: { creationTimestamp: string };
        }
      ).metadata.creationTimestamp;
    await eventually(() => {
      expect(new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') > created('z-older')).toBe(true);
    }, WAIT);
    applyTrain(fleet, ns, 'a-newer', {
      members: [{ name: 'web' }, { name: 'worker' }],
      environments: ['prod'],
    });
    await eventually(() => {
      expect(ready(ns, 'a-newer')).toMatchObject({
        status: 'False',
        reason: 'MemberInAnotherTrain',
      });
      expect(ready(ns, 'a-newer')?.message).toContain(`web is a member of ${ns}/z-older`);
      expect(ready(ns, 'z-older')).toMatchObject({ status: 'True' });
    }, WAIT);
    expect(created('a-newer') > created('z-older')).toBe(true);

    // web moves in staging alone: every replica holds it with z-older's combination; worker,
    // only in the refused train, is promoted on its own.
    for (const env of ['dev', 'staging']) {
      rollApp(fleet, ns, env, 'web', '6.6.0');
      rollApp(fleet, ns, env, 'worker', '6.6.0');
    }
    await Promise.all(replicas.map((r) => r.gateway.resync()));
    await eventually(() => {
      for (const r of replicas) {
        const view = r.gateway.view({ namespace: ns, name: 'web' });
        const prod = view?.decisions.find((d) => d.environment === 'prod');
        expect(prod?.reason).toBe('TrainCombination');
        expect(prod?.message).toContain(`${ns}/z-older`);
        const worker = r.gateway.view({ namespace: ns, name: 'worker' });
        const workerProd = worker?.decisions.find((d) => d.environment === 'prod');
        expect(workerProd?.reason ?? '').not.toMatch(/^Train/);
      }
    }, WAIT);
  });
});
