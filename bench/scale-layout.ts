/**
 * Where the scale fleet puts things: each target of each Pipeline (placement), and, in a
 * sharded run, which shard serves each Pipeline. Shared by the fleet, which labels the
 * Pipelines, and the gateways, which select them.
 */
import type { ScaleSpec } from './scale-types.js';

const ENVS = ['dev', 'staging', 'prod'] as const;

/** The label a sharded fleet's Pipelines carry, and each shard's gateway selects on. */
export const SHARD_LABEL = 'promotion-gateway.io/shard';

/** Where target `t` (0 or 1) of environment `e` of pipeline `i` lives. */
export function placement(spec: ScaleSpec, i: number, e: number, t: number) {
  const cluster = `c${String(((i * 3 + e) * 2 + t) % spec.clusters)}`;
  const env = ENVS[e] ?? 'x';
  const namespace = spec.layout === 'env' ? `env-${env}` : `app-${String(i)}-${env}`;
  return { cluster, namespace, name: `app-${String(i)}` };
}

/** A Pipeline's home: the cluster of its first target, where its promotions start. */
function home(spec: ScaleSpec, i: number): string {
  return placement(spec, i, 0, 0).cluster;
}

/**
 * Sharding by cluster, as an operator would: the home clusters, in order, cut into
 * `spec.shards` runs of as equal a count as whole clusters allow; a Pipeline belongs to the
 * shard holding its home cluster. Returns each home cluster's shard.
 */
export function clusterShards(spec: ScaleSpec): Map<string, number> {
  const shards = spec.shards ?? 1;
  const homes = new Set<string>();
  for (let i = 0; i < spec.pipelines; i++) homes.add(home(spec, i));
  const ordered = [...homes].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
  return new Map(ordered.map((c, k) => [c, Math.floor((k * shards) / ordered.length)]));
}

/** The shard name Pipeline `i` is labelled with (`s<k>`), given clusterShards(spec). */
export function shardOf(spec: ScaleSpec, shards: Map<string, number>, i: number): string {
  return `s${String(shards.get(home(spec, i)) ?? 0)}`;
}

/** How many Pipelines each shard serves, by shard index. */
export function shardSizes(spec: ScaleSpec): number[] {
  const shards = clusterShards(spec);
  const sizes = Array.from({ length: spec.shards ?? 1 }, () => 0);
  for (let i = 0; i < spec.pipelines; i++) {
    const k = shards.get(home(spec, i)) ?? 0;
    sizes[k] = (sizes[k] ?? 0) + 1;
  }
  return sizes;
}
