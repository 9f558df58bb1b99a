/**
 * A deployment's manifests through the real kubectl (the default, 1.27 and 1.33 where the
 * machine has them; 1.27 reads OpenAPI v2 in protobuf on every apply), with validation on
 * (no --validate flag): `apply -k` of every built-in kind kube-sim stores, a second apply
 * changing nothing, a changed manifest configured, and `--dry-run=server` storing nothing.
 */
import { execFile, spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFleet, type Fleet } from '../src/index.js';

const fixture = fileURLToPath(new URL('./fixtures/deploy/', import.meta.url));
/** kubectl's directory: the machine's dispatcher keeps pinned versions (kubectl.1.27, ...) there. */
const kubectlDir = (() => {
  const which = spawnSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).stdout.trim();
  return which === '' ? '' : dirname(realpathSync(which));
})();
const found = (bin: string) =>
  spawnSync(bin, ['version', '--client'], { encoding: 'utf8' }).status === 0;
/** The dispatcher's default, plus the oldest and the newest pinned versions. */
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
      ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args],
      { encoding: 'utf8' },
      (err, stdout, stderr) => {
        resolve({
          code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1,
          stdout,
          stderr,
        });
      },
    );
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kube-sim-apply-'));
  fleet = await startFleet({ clusters: KUBECTLS.map((_, i) => `c${String(i)}`) });
});
afterAll(async () => {
  await fleet.close();
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(KUBECTLS.length === 0)('kubectl apply against kube-sim', () => {
  it.each(KUBECTLS.map((bin, i) => [bin, i] as const))(
    '%s: apply -k stores every kind, then changes nothing',
    async (bin, i) => {
      const cluster = fleet.cluster(`c${String(i)}`);
      const kubeconfig = join(dir, `${String(i)}.kubeconfig`);
      await writeFile(kubeconfig, cluster.kubeconfig());
      const copy = join(dir, `deploy-${String(i)}`);
      await cp(fixture, copy, { recursive: true });

      const first = await run(bin, ['apply', '-k', copy], kubeconfig);
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      for (const what of [
        'namespace/sim-app',
        'serviceaccount/sim-app',
        'deployment.apps/sim-app',
        'service/sim-app',
        'poddisruptionbudget.policy/sim-app',
        'networkpolicy.networking.k8s.io/sim-app',
        'clusterrole.rbac.authorization.k8s.io/sim-app',
        'rolebinding.rbac.authorization.k8s.io/sim-app',
        'secret/sim-app',
      ])
        expect(first.stdout).toContain(`${what} created`);
      const deployment = cluster.get('apps/v1', 'Deployment', 'sim-app', 'sim-app');
      expect(deployment).toMatchObject({ spec: { replicas: 2 }, metadata: { generation: 1 } });

      const again = await run(bin, ['apply', '-k', copy], kubeconfig);
      expect(again.code).toBe(0);
      // As against a real server: kubectl always patches a PodDisruptionBudget's selector (its
      // patch strategy is "replace"), and a Secret's stringData (the server keeps only data).
      const changed = again.stdout.split('\n').filter((l) => l !== '' && !l.endsWith(' unchanged'));
      expect(changed.sort()).toEqual([
        'poddisruptionbudget.policy/sim-app configured',
        'secret/sim-app configured',
      ]);

      const objects = join(copy, 'objects.yaml');
      await writeFile(
        objects,
        (await readFile(objects, 'utf8')).replace('replicas: 2', 'replicas: 3'),
      );
      const scaled = await run(bin, ['apply', '-k', copy], kubeconfig);
      expect(scaled.stdout).toContain('deployment.apps/sim-app configured');
      expect(cluster.get('apps/v1', 'Deployment', 'sim-app', 'sim-app')).toMatchObject({
        spec: { replicas: 3 },
        metadata: { generation: 2 },
      });
    },
  );

  it('stores nothing for --dry-run=server, and refuses a dryRun value other than All', async () => {
    const cluster = fleet.cluster('c0');
    const kubeconfig = join(dir, 'dry.kubeconfig');
    await writeFile(kubeconfig, cluster.kubeconfig());
    const manifest = join(dir, 'dry.yaml');
    await writeFile(
      manifest,
      'apiVersion: v1\nkind: Namespace\nmetadata: { name: dry }\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: { name: dry, namespace: default }\ndata: { a: b }\n',
    );
    cluster.ensureNamespace('default');
    cluster.requests.reset();
    const dry = await run('kubectl', ['apply', '--dry-run=server', '-f', manifest], kubeconfig);
    expect(dry.stdout).toContain('namespace/dry created (server dry run)');
    expect(dry.stdout).toContain('configmap/dry created (server dry run)');
    expect(cluster.get('v1', 'Namespace', '', 'dry')).toBeUndefined();
    expect(cluster.get('v1', 'ConfigMap', 'default', 'dry')).toBeUndefined();
    expect(cluster.requests.count({ verb: 'create' })).toBe(2);

    const body = join(dir, 'refused.json');
    await writeFile(
      body,
      JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'refused' } }),
    );
    const refused = await run(
      'kubectl',
      ['create', '--raw', '/api/v1/namespaces?dryRun=Some', '-f', body],
      kubeconfig,
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      'dryRun: Unsupported value: []string{"Some"}: supported values: "All"',
    );
    expect(cluster.get('v1', 'Namespace', '', 'refused')).toBeUndefined();
  });
});
