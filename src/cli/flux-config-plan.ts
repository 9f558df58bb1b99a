/**
 * What `flux-config` writes, decided from the Pipelines alone (pure): each target cluster named
 * as the gateway names it (src/catalog/cluster-names.ts), and per cluster every (kind,
 * namespace) a Pipeline references there, because Flux matches an Alert's event source
 * namespace literally: only a listed namespace sends events.
 */
import {
  clusterNameFor,
  configuredNameOf,
  gitopsClusterRefOf,
  type ClusterNamingConfig,
  type GitopsClusterRef,
} from '../catalog/cluster-names.js';
import { parseApiVersion } from '../pipeline/api-version.js';
import { fluxAppKind, type FluxAppKind } from '../pipeline/flux-kinds.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';

/** Objects of one kind in one namespace whose events the gateway wants. */
export interface EventSource {
  kind: FluxAppKind['kind'];
  namespace: string;
}

/** One cluster whose Flux must send events: its gateway name and the sources it holds. */
export interface ClusterPlan {
  /** The gateway's name for it: the `{cluster}` of `/v1/events/{cluster}`. */
  name: string;
  /** Its GitopsCluster; absent for the management cluster. */
  gitopsCluster?: GitopsClusterRef;
  /** False when the gateway configuration does not name it yet (the name is proposed). */
  configured: boolean;
  /** Sorted by namespace, then kind; never empty. */
  sources: readonly EventSource[];
}

/** The plan: clusters sorted by name, and what was left out (one line each, for stderr). */
export interface FluxPlan {
  clusters: readonly ClusterPlan[];
  skipped: readonly string[];
}

/** A cluster name the gateway accepts in its configuration (and so in the events path). */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function isDnsLabel(name: string): boolean {
  return name.length <= 63 && DNS_LABEL.test(name);
}

/** A cluster name that cannot be proposed for a GitopsCluster; the command exits 2 with it. */
export class NamingError extends Error {
  override readonly name = 'NamingError';
}

/**
 * `config` plus an entry for every GitopsCluster the Pipelines name that it does not map: the
 * GitopsCluster's own name when that is a DNS label no other entry or GitopsCluster uses, else
 * `<namespace>-<name>`. The gateway itself names an unmapped one `namespace/name`, which has no
 * events endpoint, so an entry like this must be added to its configuration.
 */
export function withProposedNames(
  pipelines: readonly Pipeline[],
  config: ClusterNamingConfig,
): ClusterNamingConfig {
  const unmapped = new Map<string, GitopsClusterRef>();
  for (const ref of pipelines.flatMap(gitopsClustersOf)) {
    if (configuredNameOf(ref, config) === undefined)
      unmapped.set(`${ref.namespace}/${ref.name}`, ref);
  }
  const refs = [...unmapped.values()].sort(byRef);
  const taken = new Set([config.management.name, ...config.clusters.map((c) => c.name)]);
  const shared = countBy(refs, (ref) => ref.name);
  const proposed = refs.map((ref) => {
    const name = proposeName(ref, taken, (shared.get(ref.name) ?? 0) > 1);
    taken.add(name);
    return { name, gitopsCluster: ref, hmacKeys: [], jwtSubjects: [] };
  });
  return { management: config.management, clusters: [...config.clusters, ...proposed] };
}

function proposeName(ref: GitopsClusterRef, taken: ReadonlySet<string>, shared: boolean): string {
  const candidates = shared ? [] : [ref.name];
  candidates.push(`${ref.namespace}-${ref.name}`);
  const name = candidates.find((c) => isDnsLabel(c) && !taken.has(c));
  if (name === undefined)
    throw new NamingError(
      `cannot name GitopsCluster ${ref.namespace}/${ref.name} as a cluster of the gateway: give --config with a clusters entry mapping it`,
    );
  return name;
}

function gitopsClustersOf(pipeline: Pipeline): GitopsClusterRef[] {
  return pipeline.spec.environments.flatMap((env) =>
    env.targets.flatMap((target) => gitopsClusterRefOf(target, pipeline.metadata.namespace) ?? []),
  );
}

/**
 * The clusters `pipelines` deploy to, each with the (kind, namespace) pairs referenced there,
 * named by `naming` (withProposedNames' result). `configured` names the clusters the gateway
 * configuration already has. Targets of an application kind the gateway does not verify are
 * skipped, each with a line saying so.
 */
export function planClusters(
  pipelines: readonly Pipeline[],
  naming: ClusterNamingConfig,
  configured: ReadonlySet<string>,
): FluxPlan {
  const clusters = new Map<string, ClusterSources>();
  const skipped: string[] = [];
  for (const pipeline of [...pipelines].sort(byPipeline)) {
    const { namespace, name } = pipeline.metadata;
    const kind = appKindOf(pipeline);
    if (kind === undefined) {
      const { apiVersion, kind: named } = pipeline.spec.appRef;
      skipped.push(
        `Pipeline ${namespace}/${name}: appRef ${apiVersion} ${named} is not a kind the gateway verifies`,
      );
      continue;
    }
    for (const target of pipeline.spec.environments.flatMap((env) => env.targets)) {
      const cluster = clusterNameFor(target, namespace, naming);
      const entry: ClusterSources = clusters.get(cluster) ?? { sources: new Map() };
      entry.ref ??= gitopsClusterRefOf(target, namespace);
      entry.sources.set(`${target.namespace}\u0000${kind}`, { kind, namespace: target.namespace });
      clusters.set(cluster, entry);
    }
  }
  const plans = [...clusters.entries()].map(([name, entry]) => ({
    name,
    ...(entry.ref === undefined ? {} : { gitopsCluster: entry.ref }),
    configured: configured.has(name),
    sources: [...entry.sources.values()].sort(bySource),
  }));
  return { clusters: plans.sort((a, b) => compare(a.name, b.name)), skipped };
}

/** What planClusters gathers for one cluster, sources keyed by namespace and kind. */
interface ClusterSources {
  ref?: GitopsClusterRef;
  sources: Map<string, EventSource>;
}

/** The kind of the Pipeline's appRef when the gateway verifies it (group included), else undefined. */
function appKindOf(pipeline: Pipeline): FluxAppKind['kind'] | undefined {
  const { apiVersion, kind } = pipeline.spec.appRef;
  const app = fluxAppKind(kind);
  return app?.group === parseApiVersion(apiVersion).group ? app.kind : undefined;
}

/**
 * The clusters a gateway configuration has an entry for (and so may hold keys for); the
 * management cluster counts only with an entry of its own.
 */
export function configuredNames(config: Pick<ClusterNamingConfig, 'clusters'>): Set<string> {
  return new Set(config.clusters.map((c) => c.name));
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

// Code-point order, not locale order: the output must not depend on the machine's locale.
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function byRef(a: GitopsClusterRef, b: GitopsClusterRef): number {
  return compare(a.namespace, b.namespace) || compare(a.name, b.name);
}

function byPipeline(a: Pipeline, b: Pipeline): number {
  return byRef(a.metadata, b.metadata);
}

function bySource(a: EventSource, b: EventSource): number {
  return compare(a.namespace, b.namespace) || compare(a.kind, b.kind);
}
