/**
 * The start-up check of the installed Pipeline CRD, through kube-sim (which prunes custom
 * objects by their CRD's schema as the API server does) and the real client: with weave-gitops'
 * own CRD installed, a status write would drop the promotion records, so the gateway refuses
 * to start and writes nothing; with no right to read the CRD it starts and says it could not
 * check.
 */
import { fileURLToPath } from 'node:url';
import { applyFiles } from 'kube-sim';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { managementAccess } from '../../src/kube/access.js';
import { InstalledCrdError } from '../../src/wiring/crd-check.js';
import { FLUX_NAMESPACE } from '../support/fleet.js';
import {
  APP_NAME,
  createApp,
  launchGateway,
  PIPELINE_API,
  startTestFleet,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';

const UPSTREAM_CRD = fileURLToPath(
  new URL('../fixtures/weave-gitops/pipelines.weave.works_pipelines.yaml', import.meta.url),
);

let fleet: TestFleet;
const running: RunningGateway[] = [];

beforeEach(async () => {
  fleet = await startTestFleet();
  createApp(fleet, 'crd');
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((g) => g.close()));
  await fleet.close();
});

function pipelineVersion(): unknown {
  const pipeline = fleet.management.get(PIPELINE_API, 'Pipeline', 'crd', APP_NAME) as
    { metadata: { resourceVersion?: string } } | undefined;
  return pipeline?.metadata.resourceVersion;
}

describe('the installed Pipeline CRD, checked at start', () => {
  it("refuses to start, on every replica, where weave-gitops' CRD would prune the records", async () => {
    await applyFiles(fleet.management, [UPSTREAM_CRD]);
    const before = pipelineVersion();
    for (const instanceId of ['gateway-a', 'gateway-b']) {
      const replica = await launchGateway(fleet, { instanceId, start: false });
      running.push(replica);
      const started = replica.gateway.start();
      await expect(started).rejects.toBeInstanceOf(InstalledCrdError);
      await expect(started).rejects.toThrow(/status\.environments\.\*\.promotion.*status\.halts/);
      await expect(started).rejects.toThrow(
        /manifests\/crd\/pipelines\.weave\.works_pipelines\.yaml/,
      );
    }
    // Nothing was evaluated or written: the Pipeline is as it was, no pass ran.
    expect(pipelineVersion()).toBe(before);
    expect(running.map((r) => r.gateway.status().resyncPasses)).toEqual([0, 0]);
  });

  it("starts with this project's CRD, and where it may not read the CRD, says it could not check", async () => {
    const checked = await launchGateway(fleet, { instanceId: 'checked' });
    running.push(checked);
    expect(checked.gateway.status().resyncPasses).toBeGreaterThan(0);

    const rules = managementAccess(FLUX_NAMESPACE).filter(
      (r) => !r.resources.includes('customresourcedefinitions.apiextensions.k8s.io'),
    );
    fleet.management.addUser('no-crd-access', rules);
    const lines: string[] = [];
    const unchecked = await launchGateway(fleet, {
      instanceId: 'unchecked',
      managementKubeconfig: fleet.management.kubeconfig('no-crd-access'),
      logLines: lines,
    });
    running.push(unchecked);
    expect(unchecked.gateway.status().resyncPasses).toBeGreaterThan(0);
    const warning = lines
      .map((l) => JSON.parse(l) as { msg: string; reason?: string })
      .find((l) => l.msg.startsWith('could not check the installed Pipeline CRD'));
    expect(warning?.reason).toBe('Forbidden');
  });
});
