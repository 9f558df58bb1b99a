/**
 * The resync's cost: one LIST per (cluster, namespace, kind) that some pipeline references,
 * shared by every pipeline, and no per-object GETs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APP_NAME,
  HR_RESOURCE,
  PIPELINE_API,
  createApp,
  launchGateway,
  pipelineOf,
  startTestFleet,
  waitSteady,
} from './gateway-harness.js';
import type { RunningGateway, TestFleet } from './gateway-harness.js';

let fleet: TestFleet;
let gw: RunningGateway;

beforeAll(async () => {
  fleet = await startTestFleet();
  gw = await launchGateway(fleet);
});
afterAll(async () => {
  await gw.close();
  await fleet.close();
});

describe('the real gateway on kube-sim: resync cost', () => {
  it('makes one LIST per cluster, namespace and kind, shared by every pipeline', async () => {
    const ns = 'shared-scope';
    createApp(fleet, ns);
    // A second Pipeline over the very same targets: the resync must not read them twice.
    const first = pipelineOf(fleet, ns);
    fleet.management.apply({
      apiVersion: PIPELINE_API,
      kind: 'Pipeline',
      metadata: { name: `${APP_NAME}-mirror`, namespace: ns },
      spec: first.spec,
    });
    await waitSteady(fleet, [gw], ns);
    await gw.gateway.idle();
    for (const env of ['dev', 'staging', 'prod'] as const) fleet[env].requests.reset();

    const report = await gw.gateway.resync.runOnce();
    await gw.gateway.idle();

    expect(report.pipelines).toBeGreaterThanOrEqual(2);
    for (const env of ['dev', 'staging', 'prod'] as const) {
      const requests = fleet[env].requests;
      expect(requests.count({ verb: 'list', resource: HR_RESOURCE, namespace: ns })).toBe(1);
      expect(requests.count({ verb: 'get', resource: HR_RESOURCE, namespace: ns })).toBe(0);
    }
  });
});
