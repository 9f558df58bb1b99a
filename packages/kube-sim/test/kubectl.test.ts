/**
 * kube-sim against the real kubectl: apply of the Flux CRDs and fixture objects (with
 * client-side validation on, i.e. without --validate=false), get -o json, patch --type merge,
 * get -w seeing an update, delete, and Forbidden for a user without rights.
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFleet } from '../src/index.js';
import type { Fleet, SimCluster } from '../src/index.js';

const fixtures = fileURLToPath(new URL('../../../test/fixtures/flux/', import.meta.url));
const kubectlFound =
  spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
if (!kubectlFound && process.env.CI !== undefined) {
  throw new Error('kubectl is required on CI for packages/kube-sim/test/kubectl.test.ts');
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let fleet: Fleet;
let cluster: SimCluster;
let dir: string;
let kubeconfig: string;

function kubectl(args: string[], config = kubeconfig): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      'kubectl',
      ['--kubeconfig', config, '--cache-dir', join(dir, 'cache'), ...args],
      { encoding: 'utf8' },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Copies fixture objects without the server-owned fields a real user would not send back. */
async function sanitizedObjects(): Promise<string> {
  const out = join(dir, 'objects');
  await rm(out, { recursive: true, force: true });
  await mkdir(out);
  for (const file of await readdir(join(fixtures, 'objects'))) {
    const docs = parseAllDocuments(await readFile(join(fixtures, 'objects', file), 'utf8')).map(
      (d) => d.toJS() as Record<string, Record<string, unknown>>,
    );
    for (const doc of docs) {
      delete doc.metadata?.resourceVersion;
      delete doc.metadata?.uid;
    }
    await writeFile(join(out, file), docs.map((d) => stringify(d)).join('---\n'));
  }
  return out;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kube-sim-kubectl-'));
  fleet = await startFleet({ clusters: ['management', 'dev'] });
  cluster = fleet.cluster('management');
  kubeconfig = join(dir, 'admin.kubeconfig');
  await fleet.writeKubeconfig(kubeconfig);
});

afterAll(async () => {
  await fleet.close();
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!kubectlFound)('kube-sim with kubectl (skipped: kubectl not on PATH)', () => {
  it('applies the Flux CRDs and the fixture objects, then reads them back', async () => {
    const crds = await kubectl([
      'apply',
      '-f',
      join(fixtures, 'crds/helm.toolkit.fluxcd.io_helmreleases.yaml'),
      '-f',
      join(fixtures, 'crds/kustomize.toolkit.fluxcd.io_kustomizations.yaml'),
    ]);
    expect(crds.stderr).toBe('');
    expect(crds.stdout).toContain(
      'customresourcedefinition.apiextensions.k8s.io/helmreleases.helm.toolkit.fluxcd.io created',
    );
    for (const ns of ['apps', 'podinfo', 'flux-system']) {
      const created = await kubectl(['create', 'namespace', ns]);
      expect(created.stdout.trim()).toBe(`namespace/${ns} created`);
    }
    const applied = await kubectl(['apply', '-f', await sanitizedObjects()]);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('kustomization.kustomize.toolkit.fluxcd.io/podinfo created');

    const got = await kubectl(['get', 'helmrelease', 'podinfo', '-n', 'apps', '-o', 'json']);
    const hr = JSON.parse(got.stdout) as {
      kind: string;
      metadata: { generation: number; annotations: Record<string, string> };
      spec: { chart: { spec: { chart: string } } };
    };
    expect(hr.kind).toBe('HelmRelease');
    expect(hr.metadata.generation).toBe(1);
    expect(
      hr.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'],
    ).toBeDefined();
    const short = await kubectl(['get', 'hr', '-A', '-o', 'name']);
    expect(short.stdout.trim().split('\n')).toEqual([
      'helmrelease.helm.toolkit.fluxcd.io/podinfo',
      'helmrelease.helm.toolkit.fluxcd.io/podinfo',
    ]);
  });

  it('merge-patches through kubectl and bumps generation', async () => {
    const patched = await kubectl([
      'patch',
      'kustomization',
      'podinfo',
      '-n',
      'flux-system',
      '--type',
      'merge',
      '-p',
      '{"spec":{"interval":"7m"}}',
    ]);
    expect(patched.stdout.trim()).toBe('kustomization.kustomize.toolkit.fluxcd.io/podinfo patched');
    const ks = cluster.get(
      'kustomize.toolkit.fluxcd.io/v1',
      'Kustomization',
      'flux-system',
      'podinfo',
    );
    expect((ks?.spec as Record<string, unknown>).interval).toBe('7m');
    expect((ks?.metadata as Record<string, unknown>).generation).toBe(2);
  });

  it('sees an update through get -w', async () => {
    const args = [
      '--kubeconfig',
      kubeconfig,
      '--cache-dir',
      join(dir, 'cache'),
      'get',
      'kustomization',
      'podinfo',
      '-n',
      'flux-system',
      '-w',
      '-o',
      'jsonpath={.spec.interval}{"\\n"}',
    ];
    const child = spawn('kubectl', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let wake: () => void = () => undefined;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      lines.push(...chunk.split('\n').filter((l) => l !== ''));
      wake();
    });
    const waitFor = (value: string): Promise<void> =>
      new Promise((resolve) => {
        wake = () => {
          if (lines.includes(value)) resolve();
        };
        wake();
      });
    try {
      await waitFor('7m');
      const patched = await kubectl([
        'patch',
        'kustomization',
        'podinfo',
        '-n',
        'flux-system',
        '--type',
        'merge',
        '-p',
        '{"spec":{"interval":"9m"}}',
      ]);
      expect(patched.code).toBe(0);
      await waitFor('9m');
      expect(lines).toEqual(['7m', '9m']);
    } finally {
      child.kill();
    }
  });

  it('deletes through kubectl', async () => {
    const deleted = await kubectl(['delete', 'kustomization', 'podinfo', '-n', 'flux-system']);
    expect(deleted.stdout.trim()).toBe(
      'kustomization.kustomize.toolkit.fluxcd.io "podinfo" deleted',
    );
    expect(
      cluster.get('kustomize.toolkit.fluxcd.io/v1', 'Kustomization', 'flux-system', 'podinfo'),
    ).toBeUndefined();
    const again = await kubectl(['get', 'ks', 'podinfo', '-n', 'flux-system']);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain(
      'kustomizations.kustomize.toolkit.fluxcd.io "podinfo" not found',
    );
  });

  it('answers Forbidden to a user without rights, in the real wording', async () => {
    fleet.addUser('dev', [
      { verbs: ['get', 'list'], resources: ['configmaps'], namespaces: ['apps'] },
    ]);
    const devConfig = join(dir, 'dev.kubeconfig');
    await fleet.writeKubeconfig(devConfig, 'dev');
    const denied = await kubectl(['get', 'helmrelease', 'podinfo', '-n', 'apps'], devConfig);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain(
      'Error from server (Forbidden): helmreleases.helm.toolkit.fluxcd.io "podinfo" is forbidden: User "dev" cannot get resource "helmreleases" in API group "helm.toolkit.fluxcd.io" in the namespace "apps"',
    );
    const allowed = await kubectl(['get', 'configmaps', '-n', 'apps', '-o', 'json'], devConfig);
    expect(allowed.code).toBe(0);
    expect((JSON.parse(allowed.stdout) as { items: unknown[] }).items).toEqual([]);
  });
});
