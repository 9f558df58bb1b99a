/**
 * The shipped kustomize bases apply as they are, with the real kubectl and its client-side
 * validation, to kube-sim: the gateway's base to a management cluster, the reader base to a
 * target cluster; a second apply changes nothing the first did not already say.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFleet, type Fleet } from 'kube-sim';
import { packagePath } from '../../src/paths.js';
import { kustomize } from '../support/kustomize.js';

let fleet: Fleet;
let dir: string;

function kubectl(args: string[], kubeconfig: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      'kubectl',
      ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args],
      { encoding: 'utf8' },
      (err, stdout, stderr) => {
        resolve({ code: err === null ? 0 : 1, stdout, stderr });
      },
    );
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'manifests-apply-'));
  fleet = await startFleet({ clusters: ['management', 'dev'], admin: false });
});
afterAll(async () => {
  await fleet.close();
  await rm(dir, { recursive: true, force: true });
});

describe('kubectl apply -k of the shipped manifests', () => {
  it('applies manifests/deploy to a management cluster (with Flux there)', async () => {
    const management = fleet.cluster('management');
    management.ensureNamespace('flux-system');
    const kubeconfig = join(dir, 'management.kubeconfig');
    await writeFile(kubeconfig, management.kubeconfig());
    const first = await kubectl(['apply', '-k', packagePath('manifests', 'deploy')], kubeconfig);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const created = first.stdout.trim().split('\n');
    expect(created).toHaveLength(kustomize('manifests/deploy').length);
    for (const line of created) expect(line).toMatch(/ created$/);
    const deployment = management.get(
      'apps/v1',
      'Deployment',
      'promotion-system',
      'promotion-gateway',
    );
    expect(deployment).toMatchObject({ spec: { replicas: 2 } });
    expect(
      management.get(
        'rbac.authorization.k8s.io/v1',
        'Role',
        'flux-system',
        'promotion-gateway-secrets',
      ),
    ).toBeDefined();

    const again = await kubectl(['apply', '-k', packagePath('manifests', 'deploy')], kubeconfig);
    expect(again.code).toBe(0);
    const changed = again.stdout.split('\n').filter((l) => l !== '' && !l.endsWith(' unchanged'));
    // kubectl always re-sends a PodDisruptionBudget's selector (patch strategy "replace").
    expect(changed).toEqual(['poddisruptionbudget.policy/promotion-gateway configured']);
  });

  it('applies manifests/target to a target cluster', async () => {
    const dev = fleet.cluster('dev');
    dev.ensureNamespace('flux-system');
    const kubeconfig = join(dir, 'dev.kubeconfig');
    await writeFile(kubeconfig, dev.kubeconfig());
    const applied = await kubectl(['apply', '-k', packagePath('manifests', 'target')], kubeconfig);
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toContain(
      'clusterrole.rbac.authorization.k8s.io/promotion-gateway-reader created',
    );
    expect(applied.stdout).toContain('secret/promotion-gateway-reader-token created');
  });
});
