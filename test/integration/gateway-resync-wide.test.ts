/**
 * One namespace per application: where a cluster holds the targets of many namespaces, a pass
 * reads it with one paged cluster-wide LIST through the real client instead of one LIST per
 * namespace; where RBAC grants LIST per namespace only, the refused cluster-wide LIST falls
 * back to per-namespace LISTs, and later passes go straight to them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installRelease } from 'kube-sim/flux';
import { LIST_PAGE_SIZE } from '../../src/kube/reader.js';
import { CLUSTER_WIDE_ABOVE } from '../../src/verify/scope-plan.js';
import {
  APP_NAME,
  createApp,
  ENVIRONMENTS,
  GATEWAY_USER,
  HR_RESOURCE,
  launchGateway,
  startTestFleet,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';

const APPS = Array.from({ length: CLUSTER_WIDE_ABOVE + 2 }, (_, i) => `wide-${String(i)}`);
/** Unreferenced releases in dev: the cluster-wide LIST of dev takes two pages. */
const BULK = LIST_PAGE_SIZE + 10;

let fleet: TestFleet;
let gateway: RunningGateway;

beforeAll(async () => {
  fleet = await startTestFleet();
  for (const ns of APPS) createApp(fleet, ns);
  for (let i = 0; i < BULK; i++)
    installRelease(fleet.dev, { namespace: 'bulk', name: `other-${String(i)}` }, '1.0.0');
  gateway = await launchGateway(fleet);
  for (const ns of APPS) await waitSteady(fleet, [gateway], ns);
  await gateway.gateway.idle();
});
afterAll(async () => {
  await gateway.close();
  await fleet.close();
});

function resetCounters(): void {
  for (const env of ENVIRONMENTS) fleet[env].requests.reset();
}

const lists = (env: (typeof ENVIRONMENTS)[number], namespace?: string) =>
  fleet[env].requests.count({
    verb: 'list',
    resource: HR_RESOURCE,
    ...(namespace === undefined ? {} : { namespace }),
  });

describe('a pass over a cluster holding many namespaces', () => {
  it('reads each cluster with one cluster-wide LIST, paged, and no GET', async () => {
    resetCounters();
    const report = await gateway.gateway.resync();
    await gateway.gateway.idle();
    expect(report.unknown).toBe(0);
    expect(report.targets).toBe(APPS.length * ENVIRONMENTS.length);
    for (const env of ENVIRONMENTS) {
      expect(lists(env, '')).toBe(env === 'dev' ? 2 : 1);
      expect(lists(env)).toBe(lists(env, ''));
      expect(fleet[env].requests.count({ verb: 'get', resource: HR_RESOURCE })).toBe(0);
    }
    const view = gateway.gateway.view({ namespace: APPS[0] ?? '', name: APP_NAME });
    expect(view?.targets.prod?.[0]).toMatchObject({ health: 'Healthy', revision: '6.5.0' });
  });

  it('falls back to per-namespace LISTs where RBAC refuses the cluster-wide one, for good', async () => {
    fleet.staging.addUser(GATEWAY_USER, [
      {
        verbs: ['get', 'list'],
        resources: ['helmreleases.helm.toolkit.fluxcd.io'],
        namespaces: APPS,
      },
    ]);
    resetCounters();
    const first = await gateway.gateway.resync();
    await gateway.gateway.idle();
    expect(first.unknown).toBe(0);
    expect(lists('staging', '')).toBe(1);
    for (const ns of APPS) expect(lists('staging', ns)).toBe(1);

    resetCounters();
    const second = await gateway.gateway.resync();
    await gateway.gateway.idle();
    expect(second.unknown).toBe(0);
    expect(lists('staging', '')).toBe(0);
    expect(lists('staging')).toBe(APPS.length);
    expect(lists('prod', '')).toBe(1);
  });
});
