/**
 * An in-memory ClusterDirectory for unit tests: per cluster, a reader over a map of app
 * objects, counting every GET and LIST, that can be made to fail with a classified reason.
 */
import { helmRelease, releasedStatus } from 'kube-sim/flux';
import type {
  ClusterDirectory,
  KubeObject,
  ObjectReader,
  ObjectRef,
  PageVisitor,
  ReadFailureReason,
  ReadResult,
} from '../../src/kube/ports.js';

/** One cluster's objects and the reads made of them. */
export class FakeCluster implements ObjectReader {
  gets = 0;
  lists = 0;
  /** When set, every read fails with this reason. */
  failure: ReadFailureReason | undefined;
  private readonly objects = new Map<string, KubeObject>();

  /** Stores a HelmRelease `namespace/name` released cleanly at `version` (generation 1). */
  release(namespace: string, name: string, version: string): void {
    const object = helmRelease({ namespace, name }, version) as unknown as KubeObject;
    object.metadata.generation = 1;
    object.status = releasedStatus({
      ref: { namespace, name },
      previous: undefined,
      version,
      generation: 1,
      now: new Date(0),
    });
    this.objects.set(`${namespace}/${name}`, object);
  }

  /** Deletes the object `namespace/name`. */
  remove(namespace: string, name: string): void {
    this.objects.delete(`${namespace}/${name}`);
  }

  get(ref: ObjectRef): Promise<ReadResult> {
    this.gets++;
    if (this.failure !== undefined) return Promise.resolve(this.failed());
    const found = this.objects.get(`${ref.namespace}/${ref.name}`);
    if (found === undefined) {
      return Promise.resolve({ ok: false, reason: 'NotFound', message: `${ref.name} not found` });
    }
    return Promise.resolve({ ok: true, value: structuredClone(found) });
  }

  /** Namespaces of the LISTs made, in order ('*' for a cluster-wide one). */
  readonly listedNamespaces: string[] = [];
  /** When set, a cluster-wide LIST fails Forbidden (RBAC granted per namespace only). */
  clusterWideForbidden = false;
  /** Objects per page of a LIST. */
  pageSize = 2;

  list(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    visit: PageVisitor,
  ): Promise<ReadResult<number>> {
    this.lists++;
    this.listedNamespaces.push(namespace ?? '*');
    if (this.failure !== undefined) return Promise.resolve(this.failed());
    if (namespace === undefined && this.clusterWideForbidden)
      return Promise.resolve({ ok: false, reason: 'Forbidden', message: 'cluster-wide list' });
    const items = [...this.objects.values()].filter(
      (o) => o.kind === kind && (namespace === undefined || o.metadata.namespace === namespace),
    );
    for (let i = 0; i < items.length; i += this.pageSize)
      visit(items.slice(i, i + this.pageSize).map((o) => ({ ...o, apiVersion })));
    return Promise.resolve({ ok: true, value: items.length });
  }

  private failed(): { ok: false; reason: ReadFailureReason; message: string } {
    return { ok: false, reason: this.failure ?? 'Unavailable', message: 'injected failure' };
  }
}

/** Clusters by name; a name without a FakeCluster has no credentials. */
export class FakeClusters implements ClusterDirectory {
  readonly byName = new Map<string, FakeCluster>();

  /** The cluster `name`, created empty on first use. */
  cluster(name: string): FakeCluster {
    let cluster = this.byName.get(name);
    if (cluster === undefined) {
      cluster = new FakeCluster();
      this.byName.set(name, cluster);
    }
    return cluster;
  }

  reader(cluster: string): ObjectReader | undefined {
    return this.byName.get(cluster);
  }

  clusters(): string[] {
    return [...this.byName.keys()];
  }

  problem(cluster: string): string | undefined {
    return this.byName.has(cluster) ? undefined : `no credentials for cluster ${cluster}`;
  }

  /** GETs and LISTs across every cluster. */
  reads(): { gets: number; lists: number } {
    let gets = 0;
    let lists = 0;
    for (const c of this.byName.values()) {
      gets += c.gets;
      lists += c.lists;
    }
    return { gets, lists };
  }
}
