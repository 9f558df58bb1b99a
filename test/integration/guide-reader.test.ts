/**
 * docs/operations.md, step 2 ("The reader in each target cluster"), command by command against
 * a kube-sim target cluster named `dev`: the guide's own shell blocks, read from the document
 * and run through `bash` with the fleet's admin kubeconfig as KUBECONFIG (so `--context dev`
 * is the target), with validation on as shipped; kube-sim's token controller fills the token
 * Secret. The kubeconfig they build reads HelmReleases through the real client-node and
 * kubectl, and is refused Secrets and writes.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { applyFiles, startFleet, type Fleet } from 'kube-sim';
import { installRelease } from 'kube-sim/flux';
import { packagePath } from '../../src/paths.js';

let fleet: Fleet;
let dir: string;

/** The `sh` blocks of the guide's step 2, in order. */
async function stepTwoBlocks(): Promise<string[]> {
  const guide = await readFile(packagePath('docs', 'operations.md'), 'utf8');
  const start = guide.indexOf('### 2. The reader in each target cluster');
  const end = guide.indexOf('\n### ', start + 1);
  expect(start).toBeGreaterThan(0);
  const section = guide.slice(start, end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
}

/** One guide block through bash, as a reader would paste it, stopping at the first failure. */
function bash(script: string, env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      'bash',
      ['-e', '-o', 'pipefail', '-c', script],
      {
        cwd: dir,
        encoding: 'utf8',
        // HOME keeps kubectl's discovery cache in the test's directory.
        env: { PATH: process.env.PATH ?? '', HOME: dir, ...env },
      },
      (err, stdout, stderr) => {
        resolve({ code: err === null ? 0 : 1, stdout, stderr });
      },
    );
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'guide-reader-'));
  fleet = await startFleet({ clusters: ['dev'], admin: false });
  const dev = fleet.cluster('dev');
  // Flux is installed in the target cluster: its namespace, CRDs and one application.
  dev.ensureNamespace('flux-system');
  await applyFiles(dev, [
    packagePath('manifests', 'third-party', 'flux', 'helm.toolkit.fluxcd.io_helmreleases.yaml'),
    packagePath(
      'manifests',
      'third-party',
      'flux',
      'kustomize.toolkit.fluxcd.io_kustomizations.yaml',
    ),
  ]);
  installRelease(dev, { namespace: 'apps', name: 'podinfo' }, '6.5.0');
  await fleet.writeKubeconfig(join(dir, 'admin.kubeconfig'));
  await cp(packagePath('manifests', 'target'), join(dir, 'manifests', 'target'), {
    recursive: true,
  });
});
afterAll(async () => {
  await fleet.close();
  await rm(dir, { recursive: true, force: true });
});

describe('docs/operations.md step 2 against a kube-sim target cluster', () => {
  it('builds a reader kubeconfig that reads HelmReleases and nothing else', async () => {
    const blocks = await stepTwoBlocks();
    expect(blocks).toHaveLength(2);
    const [apply = '', build = ''] = blocks;
    // As shipped: the target context, and kubectl's validation left on.
    expect(apply).toContain('kubectl --context dev apply -k manifests/target/');
    expect(apply).not.toContain('--validate');
    const admin = { KUBECONFIG: join(dir, 'admin.kubeconfig') };

    const applied = await bash(apply, admin);
    expect(applied.stderr).toBe('');
    expect(applied.stdout.trim().split('\n')).toEqual([
      'serviceaccount/promotion-gateway-reader created',
      'clusterrole.rbac.authorization.k8s.io/promotion-gateway-reader created',
      'clusterrolebinding.rbac.authorization.k8s.io/promotion-gateway-reader created',
      'secret/promotion-gateway-reader-token created',
    ]);
    // Applying again (as a GitOps tool or an operator would) leaves the filled Secret alone.
    const again = await bash(apply, admin);
    expect(again.stdout.trim().split('\n')).toEqual([
      'serviceaccount/promotion-gateway-reader unchanged',
      'clusterrole.rbac.authorization.k8s.io/promotion-gateway-reader unchanged',
      'clusterrolebinding.rbac.authorization.k8s.io/promotion-gateway-reader unchanged',
      'secret/promotion-gateway-reader-token unchanged',
    ]);
    const built = await bash(build, admin);
    expect(built.stderr).toBe('');
    expect(built.code).toBe(0);

    const path = join(dir, 'dev.kubeconfig');
    const written = parse(await readFile(path, 'utf8')) as {
      clusters: { cluster: Record<string, string> }[];
      users: { user: { token: string } }[];
    };
    const dev = fleet.cluster('dev');
    expect(written.clusters[0]?.cluster).toEqual({
      server: dev.url,
      'certificate-authority-data': dev.caData,
    });
    expect(written.users[0]?.user.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);

    const kc = new KubeConfig();
    kc.loadFromFile(path);
    const release = (await kc.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      group: 'helm.toolkit.fluxcd.io',
      version: 'v2',
      namespace: 'apps',
      plural: 'helmreleases',
      name: 'podinfo',
    })) as { status?: { history?: { chartVersion: string }[] } };
    expect(release.status?.history?.[0]?.chartVersion).toBe('6.5.0');
    await expect(
      kc.makeApiClient(CoreV1Api).listNamespacedSecret({ namespace: 'flux-system' }),
    ).rejects.toMatchObject({ code: 403 });

    const reader = { KUBECONFIG: path };
    const listed = await bash('kubectl get helmreleases,kustomizations -A -o name', reader);
    expect(listed.stdout.trim()).toBe('helmrelease.helm.toolkit.fluxcd.io/podinfo');
    const secrets = await bash('kubectl -n flux-system get secrets', reader);
    expect(secrets.code).toBe(1);
    expect(secrets.stderr).toContain(
      'User "system:serviceaccount:flux-system:promotion-gateway-reader" cannot list resource "secrets"',
    );
    const deleted = await bash('kubectl -n apps delete helmrelease podinfo', reader);
    expect(deleted.stderr).toContain('cannot delete resource "helmreleases"');
  });
});
