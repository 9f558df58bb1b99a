/**
 * kubectl's own validation against kube-sim, with the real kubectl (the default, 1.27 and 1.33
 * where the machine has them) and no --validate flag: valid manifests of built-in and custom
 * kinds apply, as a plain file and as a `kind: List` (which kubectl validates on the client,
 * against /openapi/v2); an unknown field in a custom kind is refused in a plain file by the
 * server's strict field validation (what kubectl asks for when the server offers it) and in a
 * List by kubectl's client-side validation, each with its usual message, storing nothing.
 */
import { execFile, spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyFiles, startFleet, type Fleet } from '../src/index.js';

const fixtures = fileURLToPath(new URL('../../../test/fixtures/', import.meta.url));
const kubectlDir = (() => {
  const which = spawnSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).stdout.trim();
  return which === '' ? '' : dirname(realpathSync(which));
})();
const found = (bin: string) =>
  spawnSync(bin, ['version', '--client'], { encoding: 'utf8' }).status === 0;
/** 1.27 reads /openapi/v2 (protobuf) on every apply; 1.33 only to validate on the client. */
const KUBECTLS = [
  'kubectl',
  ...['kubectl.1.27', 'kubectl.1.33'].map((v) => join(kubectlDir, v)),
].filter(found);

let fleet: Fleet;
let dir: string;

function run(bin: string, args: string[], kubeconfig: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      bin,
      ['--kubeconfig', kubeconfig, '--cache-dir', `${kubeconfig}.cache`, ...args],
      { encoding: 'utf8' },
      (err, stdout, stderr) => {
        resolve({ code: err === null ? 0 : 1, stdout, stderr });
      },
    );
  });
}

const helmRelease = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'helm.toolkit.fluxcd.io/v2',
  kind: 'HelmRelease',
  metadata: { name, namespace: 'apps' },
  spec: {
    interval: '5m',
    chart: { spec: { chart: 'podinfo', sourceRef: { kind: 'HelmRepository', name: 'podinfo' } } },
    values: { replicaCount: 2, anything: { goes: [1, 'two'] } },
    ...extra,
  },
});
const pipeline = (name: string) => ({
  apiVersion: 'pipelines.weave.works/v1alpha1',
  kind: 'Pipeline',
  metadata: { name, namespace: 'apps' },
  spec: {
    appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
    environments: [{ name: 'dev', targets: [{ namespace: 'apps' }] }],
  },
});
const configMap = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'apps', labels: { tier: 'web' } },
  data: { mode: 'test' },
});

async function manifest(name: string, objects: object[], asList: boolean): Promise<string> {
  const path = join(dir, name);
  const docs = asList ? [{ apiVersion: 'v1', kind: 'List', items: objects }] : objects;
  await writeFile(path, docs.map((d) => stringify(d)).join('---\n'));
  return path;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kube-sim-validate-'));
  fleet = await startFleet({ clusters: KUBECTLS.map((_, i) => `v${String(i)}`), admin: false });
  for (const cluster of fleet.clusters) {
    await applyFiles(cluster, [
      join(fixtures, 'flux/crds/helm.toolkit.fluxcd.io_helmreleases.yaml'),
      join(fixtures, 'weave-gitops/pipelines.weave.works_pipelines.yaml'),
    ]);
    cluster.ensureNamespace('apps');
  }
});
afterAll(async () => {
  await fleet.close();
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(KUBECTLS.length === 0)('kubectl validation against kube-sim', () => {
  it.each(KUBECTLS.map((bin, i) => [bin, i] as const))(
    '%s: applies valid manifests, refuses an unknown field in a custom kind',
    async (bin, i) => {
      const cluster = fleet.cluster(`v${String(i)}`);
      const kubeconfig = join(dir, `${String(i)}.kubeconfig`);
      await writeFile(kubeconfig, cluster.kubeconfig());
      const valid = [configMap('plain'), helmRelease('plain'), pipeline('plain')];
      const plain = await run(
        bin,
        ['apply', '-f', await manifest(`p${String(i)}.yaml`, valid, false)],
        kubeconfig,
      );
      expect(plain.stderr).toBe('');
      expect(plain.stdout.trim().split('\n')).toEqual([
        'configmap/plain created',
        'helmrelease.helm.toolkit.fluxcd.io/plain created',
        'pipeline.pipelines.weave.works/plain created',
      ]);
      const listed = [configMap('listed'), helmRelease('listed'), pipeline('listed')];
      const list = await run(
        bin,
        ['apply', '-f', await manifest(`l${String(i)}.yaml`, listed, true)],
        kubeconfig,
      );
      expect(list.stderr).toBe('');
      expect(list.stdout).toContain('helmrelease.helm.toolkit.fluxcd.io/listed created');
      expect(
        cluster.get('pipelines.weave.works/v1alpha1', 'Pipeline', 'apps', 'listed'),
      ).toBeDefined();

      const bad = [configMap('bad'), helmRelease('bad', { bogusField: 1 })];
      const server = await run(
        bin,
        ['apply', '-f', await manifest(`b${String(i)}.yaml`, bad.slice(1), false)],
        kubeconfig,
      );
      expect(server.code).toBe(1);
      expect(server.stderr).toContain(
        'Error from server (BadRequest): error when creating "' +
          join(dir, `b${String(i)}.yaml`) +
          '": HelmRelease in version "v2" cannot be handled as a HelmRelease: strict decoding error: unknown field "spec.bogusField"',
      );
      const client = await run(
        bin,
        ['apply', '-f', await manifest(`c${String(i)}.yaml`, bad, true)],
        kubeconfig,
      );
      expect(client.code).toBe(1);
      expect(client.stderr).toContain(
        'error validating data: ValidationError(HelmRelease.spec): unknown field "bogusField" in io.fluxcd.toolkit.helm.v2.HelmRelease.spec; if you choose to ignore these errors, turn validation off with --validate=false',
      );
      expect(
        cluster.get('helm.toolkit.fluxcd.io/v2', 'HelmRelease', 'apps', 'bad'),
      ).toBeUndefined();
      expect(cluster.get('v1', 'ConfigMap', 'apps', 'bad')).toBeUndefined();
    },
  );
});
