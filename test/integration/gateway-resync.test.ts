/**
 * The resync's cost: one LIST per (cluster, namespace, kind) that some pipeline references,
 * shared by every pipeline, and no per-object GETs.
 */
import { describe, expect, it } from 'vitest';
import {
  APP_NAME,
  HR_RESOURCE,
  PIPELINE_API,
  createApp,
  pipelineOf,
  waitSteady,
  useFleetAndGateway,
} from '../support/gateway-harness.js';

const suite = useFleetAndGateway();

describe('the real gateway on kube-sim: resync cost', () => {
  it('makes one LIST per cluster, namespace and kind, shared by every pipeline', async () => {
    const ns = 'shared-scope';
    createApp(suite.fleet, ns);
    // A second Pipeline over the very same targets: the resync must not read them twice.
    const first = pipelineOf(suite.fleet, ns);
    suite.fleet.management.apply({
      apiVersion: PIPELINE_API,
      kind: 'Pipeline',
      metadata: { name: `${APP_NAME}-mirror`, namespace: ns },
      spec: first.spec,
    });
    await waitSteady(suite.fleet, [suite.gw], ns);
    await suite.gw.gateway.idle();
    for (const env of ['dev', 'staging', 'prod'] as const) suite.fleet[env].requests.reset();

    const report = await suite.gw.gateway.resync();
    await suite.gw.gateway.idle();

    expect(report.pipelines).toBeGreaterThanOrEqual(2);
    for (const env of ['dev', 'staging', 'prod'] as const) {
      const requests = suite.fleet[env].requests;
      expect(requests.count({ verb: 'list', resource: HR_RESOURCE, namespace: ns })).toBe(1);
      expect(requests.count({ verb: 'get', resource: HR_RESOURCE, namespace: ns })).toBe(0);
    }
  });
});
