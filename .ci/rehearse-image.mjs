// The image rehearsal's last step: kube-sim, started from the dev tree, plays a management
// cluster with a Pipeline whose environments are namespaces of that cluster; the image's own
// `serve` (its dist/ and production node_modules only, under Node 24) runs against it with a
// config file and a kubeconfig, as in a Pod; dev rolls out a new chart version, and the
// gateway must promote staging (claim, Promote Event, Succeeded record) by itself.
// Usage: node .ci/rehearse-image.mjs <app dir> <node binary>
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const [appDir, nodeBin] = process.argv.slice(2);
const root = resolve(import.meta.dirname, '..');
const { applyFiles, startFleet } = await import(`${root}/packages/kube-sim/dist/index.js`);
const { installRelease, rollOutRelease } = await import(`${root}/packages/kube-sim/dist/flux.js`);

const ENVS = ['dev', 'staging', 'prod'];
const work = mkdtempSync(join(tmpdir(), 'image-rehearsal-'));
const fleet = await startFleet({ clusters: ['management'] });
const cluster = fleet.cluster('management');
let server;
try {
  await applyFiles(cluster, [
    `${root}/manifests/crd/pipelines.weave.works_pipelines.yaml`,
    `${root}/test/fixtures/flux/crds/helm.toolkit.fluxcd.io_helmreleases.yaml`,
  ]);
  cluster.ensureNamespace('flux-system');
  cluster.ensureNamespace('apps');
  for (const env of ENVS) installRelease(cluster, { namespace: env, name: 'podinfo' }, '6.5.0');
  cluster.apply({
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name: 'podinfo', namespace: 'apps' },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
      promotion: { strategy: { notification: {} } },
      environments: ENVS.map((name) => ({ name, targets: [{ namespace: name }] })),
    },
  });
  const kubeconfig = join(work, 'kubeconfig');
  await fleet.writeKubeconfig(kubeconfig);
  const config = join(work, 'config.yaml');
  writeFileSync(
    config,
    [
      'server: { host: 127.0.0.1, port: 0 }',
      'management: { name: management }',
      'resync: { intervalMs: 1000, jitter: 0 }',
      'logLevel: info',
    ].join('\n'),
  );
  server = spawn(
    nodeBin,
    [
      '--max-semi-space-size=4',
      'dist/server.js',
      'serve',
      '--config',
      config,
      '--kubeconfig',
      kubeconfig,
    ],
    {
      cwd: appDir,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let log = '';
  server.stdout.on('data', (chunk) => (log += chunk.toString('utf8')));
  const address = await until(
    () => /"address":"(http:[^"]+)"/.exec(log)?.[1],
    'the gateway to listen',
  );
  await until(async () => (await fetch(`${address}/readyz`)).status === 200, 'readiness');
  rollOutRelease(cluster, 'dev', 'podinfo', '6.6.0');
  const record = await until(() => {
    const p = cluster.get('pipelines.weave.works/v1alpha1', 'Pipeline', 'apps', 'podinfo');
    const r = p?.status?.environments?.staging?.promotion;
    return r?.revision === '6.6.0' && r.phase === 'Succeeded' ? r : undefined;
  }, 'the promotion of staging to 6.6.0');
  const events = cluster.list('v1', 'Event', 'apps').filter((e) => e.reason === 'Promote');
  if (events.length !== 1) throw new Error(`expected one Promote event, found ${events.length}`);
  console.log(
    `image rehearsal ok: serve promoted staging to ${record.revision} (attempt ${record.attempt})`,
  );
} catch (err) {
  console.error(`image rehearsal failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
} finally {
  server?.kill('SIGTERM');
  await fleet.close();
}

/** Polls `check` every 100 ms until it returns something truthy; fails after 30 s. */
async function until(check, what) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
