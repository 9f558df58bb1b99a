/**
 * The gateway's own access to the fleet: a cluster's client is rebuilt when the kubeconfig in
 * its GitopsCluster Secret changes, and the Pipeline watch survives dropped watches.
 */
import { describe, expect, it } from 'vitest';
import { TARGET_ACCESS } from '../../src/kube/access.js';
import { FLUX_NAMESPACE } from '../support/fleet.js';
import {
  APP_NAME,
  GATEWAY_USER,
  INITIAL_VERSION,
  PIPELINE_API,
  createApp,
  eventually,
  pipelineOf,
  waitSteady,
  useFleetAndGateway,
} from '../support/gateway-harness.js';

/** The gateway's log, at debug: a watch failure that repeats the last one is logged at debug. */
const logLines: string[] = [];
const suite = useFleetAndGateway({ logLines, logLevel: 'debug' });

/** How many times the gateway has logged its Pipeline watch failing. */
const watchFailures = (): number =>
  logLines.filter((l) => l.includes('Pipelines in the management cluster failed')).length;

/** Replaces staging's kubeconfig Secret in management with one for `user`. */
function setStagingKubeconfig(user: string): void {
  suite.fleet.management.apply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'staging-kubeconfig', namespace: FLUX_NAMESPACE },
    type: 'Opaque',
    data: { value: Buffer.from(suite.fleet.staging.kubeconfig(user)).toString('base64') },
  });
}

function stagingTarget(ns: string) {
  return pipelineOf(suite.fleet, ns).status?.environments?.staging?.targets?.[0];
}

describe('the real gateway on kube-sim: cluster credentials and the Pipeline watch', () => {
  it('rebuilds a cluster client when its kubeconfig Secret changes', async () => {
    const ns = 'rotate';
    createApp(suite.fleet, ns);
    await waitSteady(suite.fleet, [suite.gw], ns);

    // Rotate to a user with no rights: the next pass must use the new credentials.
    suite.fleet.staging.addUser('no-rights', []);
    setStagingKubeconfig('no-rights');
    await suite.gw.gateway.resync();
    await eventually(() => {
      expect(stagingTarget(ns)).toMatchObject({ ready: false });
      expect(stagingTarget(ns)?.error).toContain('Forbidden');
    });

    // Rotate to a fresh user that may read: the client is rebuilt again and the target is back.
    suite.fleet.staging.addUser('reader-2', TARGET_ACCESS);
    setStagingKubeconfig('reader-2');
    await suite.gw.gateway.resync();
    await eventually(() => {
      expect(stagingTarget(ns)).toMatchObject({ ready: true, revision: INITIAL_VERSION });
    });
    setStagingKubeconfig(GATEWAY_USER);
  });

  it('keeps watching Pipelines after its watch is dropped or fails', async () => {
    suite.fleet.management.faults.closeWatches();
    // A failed watch (the API server unreachable for a moment) must restart by itself too:
    // the API server stays down until the gateway has seen its watch fail.
    const failures = watchFailures();
    await suite.fleet.management.faults.set({ down: true });
    await eventually(() => watchFailures() > failures);
    await suite.fleet.management.faults.clear();
    const ns = 'after-drop';
    createApp(suite.fleet, ns);
    // No resync: only the restarted watch can bring the new Pipeline into the catalog.
    await eventually(
      () => {
        expect(suite.gw.gateway.view({ namespace: ns, name: APP_NAME })).toBeDefined();
      },
      { timeoutMs: 20_000 },
    );
    await waitSteady(suite.fleet, [suite.gw], ns);
    expect(suite.fleet.management.get(PIPELINE_API, 'Pipeline', ns, APP_NAME)).toBeDefined();
  });
});
