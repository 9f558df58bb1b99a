/**
 * `promotion-gateway flux-config` end to end on kube-sim: Pipelines in the management cluster
 * reference HelmReleases in several application namespaces of dev and staging; the command
 * writes each cluster's kustomize folder and keys, kubectl applies them, and a simulated
 * notification-controller (support/flux-notifier.ts: Flux's own matching, namespace literal,
 * name wildcard) delivers an event for every referenced namespace to a real gateway, which
 * answers 202 and reads the named object. The example shipped before (`namespace: '*'`)
 * routes nothing from those namespaces, and neither does a cluster-wide Alert under
 * `--no-cross-namespace-refs`, which --per-namespace answers.
 */
import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyAll, applyFiles, parseManifests, type SimCluster } from 'kube-sim';
import { installRelease, rollOutRelease } from 'kube-sim/flux';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { runFluxConfig } from '../../src/cli/flux-config.js';
import type { ConfigInput } from '../../src/config/load.js';
import type { KubeObject } from '../../src/kube/ports.js';
import { packagePath } from '../../src/paths.js';
import type { Pipeline } from '../../src/pipeline/pipeline-resource.js';
import { dispatchEvent, NOTIFICATION_API } from '../support/flux-notifier.js';
import {
  eventually,
  HR_API,
  HR_RESOURCE,
  launchGateway,
  PIPELINE_API,
  startTestFleet,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import { tempDir } from '../support/temp-dirs.js';

/** The applications: Pipeline namespace/name -> the namespace of its HelmRelease per cluster. */
const APPS = [
  { pipeline: 'shop/podinfo', dev: 'shop-dev', staging: 'shop' },
  { pipeline: 'team-a/api', dev: 'team-a', staging: 'team-a' },
] as const;
const CLUSTERS = ['dev', 'staging'] as const;
const NOTIFICATION_CRDS = ['providers', 'alerts'].map((kind) =>
  packagePath('test', 'fixtures', 'flux', 'crds', `notification.toolkit.fluxcd.io_${kind}.yaml`),
);

const dir = tempDir('flux-config-it-');
const out = join(dir, 'out');
let fleet: TestFleet;
let running: RunningGateway | undefined;
let managementKubeconfig: string;

async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const capture = () => {
    const stream = new PassThrough();
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
  };
  const [o, e] = [capture(), capture()];
  const code = await runFluxConfig(['--kubeconfig', managementKubeconfig, ...args], {
    env: {},
    out: o.stream,
    err: e.stream,
  });
  return { code, out: o.text(), err: e.text() };
}

function kubectl(cluster: SimCluster, args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const kubeconfig = join(dir, `${cluster.name}.kubeconfig`);
    void writeFile(kubeconfig, cluster.kubeconfig()).then(() =>
      execFile(
        'kubectl',
        ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args],
        { encoding: 'utf8' },
        (err, stdout, stderr) => {
          resolve({ code: err === null ? 0 : 1, stdout, stderr });
        },
      ),
    );
  });
}

function createPipelines(): void {
  for (const app of APPS) {
    const [namespace = '', name = ''] = app.pipeline.split('/');
    for (const env of CLUSTERS)
      installRelease(fleet.env(env), { namespace: app[env], name }, '1.0.0');
    fleet.management.ensureNamespace(namespace);
    const pipeline: Pipeline = {
      apiVersion: PIPELINE_API,
      kind: 'Pipeline',
      metadata: { namespace, name },
      spec: {
        appRef: { apiVersion: HR_API, kind: 'HelmRelease', name },
        promotion: { strategy: { notification: {} } },
        environments: CLUSTERS.map((env) => ({
          name: env,
          targets: [
            {
              namespace: app[env],
              clusterRef: { kind: 'GitopsCluster', name: env, namespace: 'flux-system' },
            },
          ],
        })),
      },
    };
    fleet.management.apply(pipeline as unknown as KubeObject);
  }
}

beforeAll(async () => {
  fleet = await startTestFleet();
  for (const name of ['dev', 'staging', 'prod']) {
    await applyFiles(fleet.env(name), NOTIFICATION_CRDS);
    fleet.env(name).ensureNamespace('flux-system');
  }
  createPipelines();
  managementKubeconfig = join(dir, 'management.kubeconfig');
  await writeFile(managementKubeconfig, fleet.management.kubeconfig());
});
afterAll(async () => {
  await running?.close();
  await fleet.close();
});

/** The gateway the second test starts. */
function gateway(): RunningGateway {
  if (running === undefined) throw new Error('the gateway is not running');
  return running;
}

/** dev's Flux allows cross-namespace refs; staging's runs locked down, so it gets --per-namespace. */
const RUNS = {
  dev: ['--cluster', 'dev'],
  staging: ['--cluster', 'staging', '--per-namespace'],
};

describe('flux-config on kube-sim, through kubectl and a simulated notification-controller', () => {
  let entries: NonNullable<ConfigInput['clusters']> = [];

  it('writes a kustomize folder per cluster and the keys apart, never replacing a key', async () => {
    const placeholder = ['--address', 'http://gateway.invalid', '-o', out, '--generate-keys'];
    const config = join(dir, 'gateway.yaml');
    // The key is an unset variable here: flux-config takes names from the file, not secrets.
    await writeFile(
      config,
      stringify({
        clusters: [
          {
            name: 'staging',
            gitopsCluster: { namespace: 'flux-system', name: 'staging' },
            hmacKeys: [{ env: 'UNSET_STAGING_KEY' }],
          },
        ],
      }),
    );
    const dev = await run(...placeholder, ...RUNS.dev);
    const staging = await run(...placeholder, ...RUNS.staging, '--config', config);
    expect([dev.code, staging.code], dev.err + staging.err).toEqual([0, 0]);
    expect(dev.out).toContain('No --config given: the names are proposed');
    expect(staging.out).toContain(`${config} names every one of them already`);
    entries = [dev, staging].flatMap((r) => (parse(r.out) as ConfigInput).clusters ?? []);
    expect(entries).toEqual(
      CLUSTERS.map((name) => ({
        name,
        gitopsCluster: { namespace: 'flux-system', name },
        hmacKeys: [{ file: `/etc/promotion-gateway/keys/${name}` }],
      })),
    );

    const devAlert = parse(await readFile(join(out, 'dev', 'alert.yaml'), 'utf8')) as KubeObject;
    expect((devAlert.spec as { eventSources: unknown[] }).eventSources).toEqual([
      { kind: 'HelmRelease', name: '*', namespace: 'shop-dev' },
      { kind: 'HelmRelease', name: '*', namespace: 'team-a' },
    ]);
    const stagingAlerts = parseAllDocuments(
      await readFile(join(out, 'staging', 'alert.yaml'), 'utf8'),
    ).map((d) => d.toJS() as KubeObject);
    expect(stagingAlerts.map((a) => a.metadata.namespace)).toEqual(['shop', 'team-a']);
    const kustomization = parse(await readFile(join(out, 'dev', 'kustomization.yaml'), 'utf8'));
    expect(kustomization).toMatchObject({ resources: ['provider.yaml', 'alert.yaml'] });

    for (const secret of [
      'dev/secret.yaml',
      'staging/secret.yaml',
      'promotion-gateway-hmac-keys/dev',
    ])
      expect((await stat(join(out, secret))).mode & 0o777, secret).toBe(0o600);
    expect(await readFile(join(out, '.gitignore'), 'utf8')).toContain('*/secret.yaml');
    const devKey = await readFile(join(out, 'promotion-gateway-hmac-keys', 'dev'), 'utf8');
    expect(devKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await readFile(join(out, 'dev', 'secret.yaml'), 'utf8')).toContain(`token: ${devKey}`);

    const again = await run(...placeholder, ...RUNS.dev);
    expect(again.code).toBe(2);
    expect(again.err).toContain(
      `${join(out, 'dev', 'secret.yaml')}, ${join(out, 'promotion-gateway-hmac-keys', 'dev')} exist`,
    );
    expect(await readFile(join(out, 'promotion-gateway-hmac-keys', 'dev'), 'utf8')).toBe(devKey);
  });

  it('delivers an event of every referenced namespace to the gateway, which reads the object', async () => {
    const keys = join(out, 'promotion-gateway-hmac-keys');
    // What the gateway's pod sees: the key Secret's files, here read from where they were written.
    const clusters = entries.map((e) => ({ ...e, hmacKeys: [{ file: join(keys, e.name) }] }));
    running = await launchGateway(fleet, { config: { clusters } });
    const gw = running;
    const secretsBefore = await readFile(join(out, 'staging', 'secret.yaml'), 'utf8');
    for (const args of Object.values(RUNS))
      expect((await run('--address', gw.url, '-o', out, ...args)).code).toBe(0);
    // Re-running without --generate-keys moves the address and leaves the keys alone.
    expect(await readFile(join(out, 'staging', 'secret.yaml'), 'utf8')).toBe(secretsBefore);

    for (const name of CLUSTERS) {
      const cluster = fleet.env(name);
      const secret = await kubectl(cluster, ['apply', '-f', join(out, name, 'secret.yaml')]);
      const applied = await kubectl(cluster, ['apply', '-k', join(out, name)]);
      expect([secret.code, applied.code], secret.stderr + applied.stderr).toEqual([0, 0]);
      expect(applied.stderr).toBe('');
    }
    expect(fleet.staging.list(NOTIFICATION_API, 'Provider').length).toBe(2);

    for (const app of APPS) {
      const name = app.pipeline.split('/')[1] ?? '';
      for (const env of CLUSTERS) {
        const cluster = fleet.env(env);
        const hr = cluster.get(HR_API, 'HelmRelease', app[env], name) as KubeObject;
        const reads = () =>
          cluster.requests.count({ verb: 'get', resource: HR_RESOURCE, namespace: app[env], name });
        const before = reads();
        const deliveries = await dispatchEvent(cluster, hr, {
          noCrossNamespaceRefs: env === 'staging',
        });
        expect(deliveries, `${env} ${app[env]}`).toEqual([
          {
            alert:
              env === 'dev' ? 'flux-system/promotion-gateway' : `${app[env]}/promotion-gateway`,
            address: `${gw.url}/v1/events/${env}`,
            status: 202,
            body: { accepted: true, hint: 'queued' },
          },
        ]);
        await eventually(() => reads() > before);
      }
    }
  });

  it('promotes what such an event announces', async () => {
    const released = rollOutRelease(fleet.dev, 'team-a', 'api', '1.1.0') as unknown as KubeObject;
    const [delivery] = await dispatchEvent(fleet.dev, released);
    expect(delivery?.status).toBe(202);
    await eventually(
      () => {
        const pipeline = fleet.management.get(PIPELINE_API, 'Pipeline', 'team-a', 'api') as
          Pipeline | undefined;
        expect(pipeline?.status?.environments?.staging?.promotion).toMatchObject({
          revision: '1.1.0',
          phase: 'Succeeded',
        });
      },
      { timeoutMs: 15_000 },
    );
  });

  it('routes nothing from application namespaces through the Alert shipped before', async () => {
    installRelease(fleet.prod, { namespace: 'team-a', name: 'api' }, '1.0.0');
    installRelease(fleet.prod, { namespace: 'flux-system', name: 'infra' }, '1.0.0');
    const app = fleet.prod.get(HR_API, 'HelmRelease', 'team-a', 'api') as KubeObject;
    const own = fleet.prod.get(HR_API, 'HelmRelease', 'flux-system', 'infra') as KubeObject;
    applyAll(fleet.prod, parseManifests(OLD_EXAMPLE(gateway().url)));
    expect(await dispatchEvent(fleet.prod, app)).toEqual([]);
    expect(await dispatchEvent(fleet.prod, own)).toEqual([]);
    // docs/api.md's old Alert left the namespace out: its own namespace only.
    applyAll(
      fleet.prod,
      parseManifests(OLD_EXAMPLE(gateway().url).replaceAll("namespace: '*'", '')),
    );
    expect(await dispatchEvent(fleet.prod, app)).toEqual([]);
    expect((await dispatchEvent(fleet.prod, own)).map((d) => d.alert)).toEqual([
      'flux-system/promotion-gateway',
    ]);
  });

  it('routes nothing across namespaces under --no-cross-namespace-refs without --per-namespace', async () => {
    const hr = fleet.dev.get(HR_API, 'HelmRelease', 'shop-dev', 'podinfo') as KubeObject;
    expect(await dispatchEvent(fleet.dev, hr, { noCrossNamespaceRefs: true })).toEqual([]);
    expect(await dispatchEvent(fleet.dev, hr)).toHaveLength(1);
  });

  // The bin runs only what `npm run build` made; tests run the sources, so this one needs a build.
  it.runIf(builtFromCurrentSources())(
    'prints the same through the built bin, node dist/server.js flux-config',
    async () => {
      const { url } = gateway();
      const inProcess = await run('--address', url);
      expect(inProcess.code).toBe(0);
      const bin = await runBin(
        'flux-config',
        '--kubeconfig',
        managementKubeconfig,
        '--address',
        url,
      );
      expect(bin).toEqual({ code: 0, stdout: inProcess.out, stderr: inProcess.err });
      const refused = await runBin('flux-config', '--kubeconfig', managementKubeconfig);
      expect(refused.code).toBe(2);
      expect(refused.stdout).toBe('');
      expect(refused.stderr.split('\n')[0]).toBe('--address URL is required');
    },
  );
});

describe('flux-config on kube-sim: what it cannot use, and what it warns about', () => {
  it('exits 2 naming the context when it may not list Pipelines or finds none', async () => {
    fleet.management.addUser('nobody', []);
    const nobody = join(dir, 'nobody.kubeconfig');
    await writeFile(nobody, fleet.management.kubeconfig('nobody'));
    const forbidden = await run('--address', 'http://gw', '--kubeconfig', nobody);
    expect(forbidden.code).toBe(2);
    expect(forbidden.out).toBe('');
    expect(forbidden.err).toMatch(
      /^flux-config: cannot list Pipelines through context "management" of .*nobody\.kubeconfig \(https:\/\/127\.0\.0\.1:\d+\): .*forbidden.*\n$/,
    );
    const config = join(dir, 'empty-namespaces.yaml');
    await writeFile(config, stringify({ pipelineNamespaces: ['nothing-here'] }));
    const none = await run('--address', 'http://gw', '--config', config);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/^flux-config: no Pipelines found through context "management" of /);
  });

  it("writes, for a shard's configuration, the objects of the Pipelines that shard serves", async () => {
    const shop = fleet.management.get(PIPELINE_API, 'Pipeline', 'shop', 'podinfo');
    if (shop === undefined) throw new Error('no Pipeline shop/podinfo');
    const metadata = shop.metadata as Record<string, unknown>;
    fleet.management.apply({
      ...shop,
      metadata: { ...metadata, labels: { 'promotion-gateway.io/shard': 'eu' } },
    });
    const shard = (name: string, pipelineSelector: string) => {
      const file = join(dir, `shard-${name}.yaml`);
      return writeFile(file, stringify({ sharding: { name, pipelineSelector } })).then(() => file);
    };
    const forShard = async (name: string, pipelineSelector: string) =>
      run(
        '--address',
        `http://gw-${name}`,
        '--cluster',
        'dev',
        '--config',
        await shard(name, pipelineSelector),
      );
    const eu = await forShard('eu', 'promotion-gateway.io/shard=eu');
    expect(eu.code).toBe(0);
    expect(eu.out).toContain('address: http://gw-eu/v1/events/dev');
    expect(eu.out).toContain('namespace: shop-dev');
    expect(eu.out).not.toContain('namespace: team-a');
    const rest = await forShard('main', '!promotion-gateway.io/shard');
    expect(rest.code).toBe(0);
    expect(rest.out).toContain('namespace: team-a');
    expect(rest.out).not.toContain('namespace: shop-dev');
    const bad = await run('--address', 'http://gw', '--config', await shard('x', 'a in b'));
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/sharding\.pipelineSelector/);
    const labelled = fleet.management.get(PIPELINE_API, 'Pipeline', 'shop', 'podinfo') ?? shop;
    const stored = labelled.metadata as Record<string, unknown>;
    fleet.management.apply({ ...labelled, metadata: { ...stored, labels: {} } });
  });

  it('warns about a GitopsCluster that does not exist, and still writes its objects', async () => {
    installRelease(fleet.prod, { namespace: 'late', name: 'qa-app' }, '1.0.0');
    fleet.management.ensureNamespace('late');
    fleet.management.apply({
      apiVersion: PIPELINE_API,
      kind: 'Pipeline',
      metadata: { namespace: 'late', name: 'qa-app' },
      spec: {
        appRef: { apiVersion: HR_API, kind: 'HelmRelease', name: 'qa-app' },
        environments: [
          {
            name: 'qa',
            targets: [{ namespace: 'late', clusterRef: { kind: 'GitopsCluster', name: 'qa' } }],
          },
        ],
      },
    });
    const result = await run('--address', 'http://gw', '--cluster', 'qa');
    expect(result.code).toBe(0);
    expect(result.err).toContain(
      'flux-config: GitopsCluster late/qa (cluster qa) does not exist: the gateway cannot read that cluster until it does\n',
    );
    expect(result.out).toContain('# cluster qa (GitopsCluster late/qa): apply in that cluster');
    expect(result.out).toContain('address: http://gw/v1/events/qa');
  });
});

/** True when dist/server.js, the bundled bin, was built from the sources as they are now. */
function builtFromCurrentSources(): boolean {
  const bin = packagePath('dist', 'server.js');
  const modules = [
    'server',
    ...['', '-objects', '-output', '-plan', '-source'].map((s) => `cli/flux-config${s}`),
  ];
  return (
    existsSync(bin) &&
    modules.every((m) => statSync(bin).mtimeMs >= statSync(packagePath('src', `${m}.ts`)).mtimeMs)
  );
}

/** `node dist/server.js ...args`: its exit status and output. */
function runBin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [packagePath('dist', 'server.js'), ...args],
      { encoding: 'utf8' },
      (err, stdout, stderr) => {
        resolve({ code: err === null ? 0 : Number(err.code), stdout, stderr });
      },
    );
  });
}

/** manifests/examples/flux-provider-alert.yaml as shipped before flux-config, pointed at `url`. */
function OLD_EXAMPLE(url: string): string {
  return `
apiVersion: v1
kind: Secret
metadata: { name: promotion-gateway-hmac, namespace: flux-system }
type: Opaque
stringData: { token: replace-with-a-long-random-value }
---
apiVersion: ${NOTIFICATION_API}
kind: Provider
metadata: { name: promotion-gateway, namespace: flux-system }
spec:
  type: generic-hmac
  address: ${url}/v1/events/prod
  secretRef: { name: promotion-gateway-hmac }
---
apiVersion: ${NOTIFICATION_API}
kind: Alert
metadata: { name: promotion-gateway, namespace: flux-system }
spec:
  providerRef: { name: promotion-gateway }
  eventSeverity: info
  eventSources:
    - kind: HelmRelease
      name: '*'
      namespace: '*'
    - kind: Kustomization
      name: '*'
      namespace: '*'
  inclusionList:
    - '.*succeeded.*'
    - '.*Reconciliation finished.*'
`;
}
