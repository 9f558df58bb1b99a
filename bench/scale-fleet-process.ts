/**
 * The scale benchmark's fleet, in a process of its own: a management cluster with N Pipelines
 * and a GitopsCluster per target cluster, and C target clusters holding the HelmReleases, all
 * Ready at 1.0.0. Objects are written through kube-sim's code API, which is not counted as
 * requests, so the counts the benchmark reads are the gateway's alone.
 */
import { fileURLToPath } from 'node:url';
import { applyFiles, startFleet, type Fleet } from 'kube-sim';
import { installRelease, rollOutRelease } from 'kube-sim/flux';
import { registerGitopsCluster } from 'kube-sim/gitops';
import { managementAccess, TARGET_ACCESS } from 'promotion-gateway';
import { IdleFleet } from './idle-fleet.js';
import { paceOf } from './scale-pace.js';
import { clusterShards, placement, SHARD_LABEL, shardOf } from './scale-layout.js';
import type {
  IdleFleetRequest,
  ScaleFleetMessage,
  ScaleSpec,
  ToScaleFleet,
} from './scale-types.js';

const USER = 'promotion-gateway';
const FLUX_NS = 'flux-system';
const PIPELINE_NS = 'pipelines';
const ENVS = ['dev', 'staging', 'prod'] as const;
const IDLE_REQUESTS = new Set(['objects', 'mark-statuses', 'statuses-since']);
const file = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

function send(message: ScaleFleetMessage): void {
  process.send?.(message);
}

function pipeline(spec: ScaleSpec, i: number, shards: Map<string, number> | undefined) {
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: {
      name: `app-${String(i)}`,
      namespace: PIPELINE_NS,
      ...(shards === undefined ? {} : { labels: { [SHARD_LABEL]: shardOf(spec, shards, i) } }),
    },
    spec: {
      appRef: {
        apiVersion: 'helm.toolkit.fluxcd.io/v2',
        kind: 'HelmRelease',
        name: `app-${String(i)}`,
      },
      promotion: { strategy: { notification: {} } },
      environments: ENVS.map((env, e) => ({
        name: env,
        targets: [0, 1].map((t) => {
          const at = placement(spec, i, e, t);
          return {
            namespace: at.namespace,
            clusterRef: { kind: 'GitopsCluster', name: at.cluster, namespace: FLUX_NS },
          };
        }),
      })),
    },
  };
}

async function build(spec: ScaleSpec): Promise<Fleet> {
  const names = Array.from({ length: spec.clusters }, (_, c) => `c${String(c)}`);
  const fleet = await startFleet({ clusters: ['management', ...names] });
  const management = fleet.cluster('management');
  await applyFiles(management, [
    file('manifests/crd/pipelines.weave.works_pipelines.yaml'),
    file('manifests/third-party/gitopsclusters.gitops.weave.works.yaml'),
  ]);
  management.addUser(USER, managementAccess(FLUX_NS));
  management.ensureNamespace(PIPELINE_NS);
  for (const name of names) {
    const cluster = fleet.cluster(name);
    await applyFiles(cluster, [
      file('manifests/third-party/flux/helm.toolkit.fluxcd.io_helmreleases.yaml'),
    ]);
    cluster.addUser(USER, TARGET_ACCESS);
    registerGitopsCluster(management, cluster, { namespace: FLUX_NS, user: USER });
  }
  const shards = spec.shards === undefined ? undefined : clusterShards(spec);
  for (let i = 0; i < spec.pipelines; i++) {
    for (let e = 0; e < ENVS.length; e++)
      for (const t of [0, 1]) {
        const at = placement(spec, i, e, t);
        installRelease(
          fleet.cluster(at.cluster),
          { namespace: at.namespace, name: at.name },
          '1.0.0',
        );
      }
    management.apply(pipeline(spec, i, shards));
  }
  return fleet;
}

function roll(fleet: Fleet, spec: ScaleSpec, fraction: number, version: string): number {
  const count = Math.floor(spec.pipelines * fraction);
  for (let i = 0; i < count; i++)
    for (const t of [0, 1]) {
      const at = placement(spec, i, 0, t);
      rollOutRelease(fleet.cluster(at.cluster), at.namespace, at.name, version);
    }
  return count;
}

async function main(spec: ScaleSpec): Promise<void> {
  const started = Date.now();
  const fleet = await build(spec);
  // A slow API server: every resource request of every cluster answers this much later.
  const { latencyMs } = paceOf(spec.pace);
  if (latencyMs > 0)
    for (const cluster of fleet.clusters)
      await cluster.faults.set({ latency: { fixedMs: latencyMs } });
  const probeAt = placement(spec, 0, 0, 0);
  const hmacKey = 'scale-bench-key-0123456789';
  send({
    type: 'ready',
    info: {
      adminUrl: fleet.adminUrl,
      managementKubeconfig: fleet.cluster('management').kubeconfig(USER),
      clusters: fleet.clusters.map((c) => c.name).filter((n) => n !== 'management'),
      probe: {
        ...probeAt,
        hmacKey,
        object: fleet
          .cluster(probeAt.cluster)
          .get('helm.toolkit.fluxcd.io/v2', 'HelmRelease', probeAt.namespace, probeAt.name),
      },
      buildMs: Date.now() - started,
    },
  });
  const idle = new IdleFleet(fleet);
  process.on('message', (message: ToScaleFleet) => {
    const reply = (value: unknown) => {
      send({ type: 'reply', id: 'id' in message ? message.id : 0, value });
    };
    if (message.type === 'rss') reply(process.memoryUsage().rss);
    else if (IDLE_REQUESTS.has(message.type)) reply(idle.answer(message as IdleFleetRequest));
    else if (message.type === 'roll') reply(roll(fleet, spec, message.fraction, message.version));
    else if (message.type === 'probe') {
      const at = placement(spec, 0, 0, 0);
      for (const t of [0, 1]) {
        const p = placement(spec, 0, 0, t);
        rollOutRelease(fleet.cluster(p.cluster), p.namespace, p.name, message.version);
      }
      reply(
        fleet
          .cluster(at.cluster)
          .get('helm.toolkit.fluxcd.io/v2', 'HelmRelease', at.namespace, at.name),
      );
    }
  });
  process.on('disconnect', () => {
    void fleet.close().finally(() => process.exit(0));
  });
}

if (process.send !== undefined) {
  process.once('message', (message: ToScaleFleet) => {
    if (message.type !== 'start') return;
    main(message.spec).catch((err: unknown) => {
      process.stderr.write(
        `bench scale fleet: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      process.exit(1);
    });
  });
}
