import type { CatalogTarget, ListScope } from '../catalog/targets.js';
import type { TargetLocation, TargetStatus } from '../evaluate/decisions.js';
import type { ClusterDirectory, ReadFailureReason, ReadResult } from '../kube/ports.js';
import { parseApiVersion } from '../pipeline/api-version.js';
import { apiVersionCandidates } from '../pipeline/flux-kinds.js';
import { isClusterWide } from './scope-plan.js';
import { targetStatusFromFailure, targetStatusFromObject } from './target-status.js';

/** Sees every read by cluster and result ('ok' or the failure reason), for metrics and refreshes. */
export type ReadObserver = (
  cluster: string,
  verb: 'get' | 'list',
  result: 'ok' | ReadFailureReason,
) => void;

/**
 * The [verify] stage: reads app objects from their own cluster with the gateway's credentials
 * and turns what it finds into TargetStatus. It never throws: a failed read is Unknown.
 */
export class Verifier {
  private readonly servedVersions = new Map<string, string>();

  constructor(
    private readonly clusters: ClusterDirectory,
    private readonly observe: ReadObserver = () => undefined,
  ) {}

  /** One GET of the target's object; the status carries the target's (catalog) location. */
  async readOne(target: CatalogTarget): Promise<TargetStatus> {
    const { key, ref, location } = target;
    const reader = this.clusters.reader(key.cluster);
    if (reader === undefined) return this.noReader(location);
    const result = await this.withServedVersion(
      key.cluster,
      ref.apiVersion,
      ref.kind,
      (apiVersion) =>
        reader.get({ apiVersion, kind: ref.kind, namespace: ref.namespace, name: ref.name }),
    );
    this.observe(key.cluster, 'get', result.ok ? 'ok' : result.reason);
    return toStatus(result, location);
  }

  /**
   * Tries apiVersions newest first and remembers, per cluster and kind, the one that answered:
   * a cluster may serve only v2 while a Pipeline still names v2beta1. A NotFound on every
   * version is a missing object (that costs one read per version, once).
   */
  private async withServedVersion<T>(
    cluster: string,
    apiVersion: string,
    kind: string,
    read: (apiVersion: string) => Promise<ReadResult<T>>,
  ): Promise<ReadResult<T>> {
    const cacheKey = `${cluster}|${parseApiVersion(apiVersion).group}|${kind}`;
    const known = this.servedVersions.get(cacheKey);
    const candidates = apiVersionCandidates(apiVersion, kind);
    const order =
      known === undefined ? candidates : [known, ...candidates.filter((v) => v !== known)];
    let last: ReadResult<T> | undefined;
    for (const candidate of order) {
      last = await read(candidate);
      if (last.ok || last.reason !== 'NotFound') {
        if (last.ok) this.servedVersions.set(cacheKey, candidate);
        return last;
      }
      if (known !== undefined) return last;
    }
    return (
      last ?? { ok: false, reason: 'UnsupportedKind', message: `kind ${kind} is not supported` }
    );
  }

  /**
   * One paged LIST for a scope (a namespace, or the whole cluster): returns the status of each
   * requested target in it (absent from the list = NotFound; a failed list = every target
   * Unknown with the failure). Only the targets' statuses are kept, never the listed objects.
   */
  async readScope(
    scope: ListScope,
    targets: readonly CatalogTarget[],
  ): Promise<Map<CatalogTarget, TargetStatus>> {
    const out = new Map<CatalogTarget, TargetStatus>();
    const reader = this.clusters.reader(scope.cluster);
    if (reader === undefined) {
      for (const t of targets) out.set(t, this.noReader(t.location));
      return out;
    }
    const wanted = new Map(targets.map((t) => [`${t.key.namespace}/${t.key.name}`, t]));
    const namespace = isClusterWide(scope) ? undefined : scope.namespace;
    const result = await this.withServedVersion(
      scope.cluster,
      scope.apiVersion,
      scope.kind,
      (v) => {
        out.clear();
        return reader.list(v, scope.kind, namespace, (items) => {
          for (const object of items) {
            const target = wanted.get(`${object.metadata.namespace ?? ''}/${object.metadata.name}`);
            if (target !== undefined)
              out.set(target, targetStatusFromObject(object, target.location));
          }
        });
      },
    );
    this.observe(scope.cluster, 'list', result.ok ? 'ok' : result.reason);
    for (const t of targets) {
      if (!result.ok)
        out.set(t, targetStatusFromFailure(result.reason, result.message, t.location));
      else if (!out.has(t)) out.set(t, notListed(t));
    }
    return out;
  }

  private noReader(location: TargetLocation): TargetStatus {
    const why =
      this.clusters.problem(location.cluster) ?? `no credentials for cluster ${location.cluster}`;
    return targetStatusFromFailure('UnknownCluster', why, location);
  }
}

function toStatus(result: ReadResult, location: TargetLocation): TargetStatus {
  return result.ok
    ? targetStatusFromObject(result.value, location)
    : targetStatusFromFailure(result.reason, result.message, location);
}

function notListed(target: CatalogTarget): TargetStatus {
  const { kind, namespace, name } = target.ref;
  return targetStatusFromFailure(
    'NotFound',
    `${kind} ${namespace}/${name} not found`,
    target.location,
  );
}
