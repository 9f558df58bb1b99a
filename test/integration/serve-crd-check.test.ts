/**
 * `promotion-gateway serve` against a management cluster whose Pipeline CRD is weave-gitops'
 * own: it exits 1 before listening or writing anything (the gateway-level check and its
 * messages: gateway-crd-check.test.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { applyFiles } from 'kube-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServe } from '../../src/cli/serve.js';
import { GATEWAY_USER, startTestFleet, type TestFleet } from '../support/fleet.js';
import { tempDir } from '../support/temp-dirs.js';

const UPSTREAM_CRD = fileURLToPath(
  new URL('../fixtures/weave-gitops/pipelines.weave.works_pipelines.yaml', import.meta.url),
);

let fleet: TestFleet;
beforeAll(async () => {
  fleet = await startTestFleet();
  await applyFiles(fleet.management, [UPSTREAM_CRD]);
});
afterAll(() => fleet.close());

describe("serve on weave-gitops' own Pipeline CRD", () => {
  it('exits 1 without listening', async () => {
    const dir = tempDir('serve-crd');
    const kubeconfig = join(dir, 'management.yaml');
    writeFileSync(kubeconfig, fleet.management.kubeconfig(GATEWAY_USER));
    const config = join(dir, 'config.yaml');
    writeFileSync(
      config,
      `logLevel: silent\nserver:\n  host: 127.0.0.1\n  port: 0\nmanagement:\n  name: management\n  kubeconfig: ${kubeconfig}\n`,
    );
    const out = new PassThrough();
    expect(await runServe(['--config', config], {}, out)).toBe(1);
  });
});
