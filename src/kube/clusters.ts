import type { KubeConfig } from '@kubernetes/client-node';
import { classifyKubeError } from './errors.js';
import { kubeConfigFromSecretValue, kubeconfigSecretOf } from './kubeconfig-secret.js';
import type { KubeCalls } from './request-options.js';
import { GITOPS_CLUSTER } from './resources.js';
import { KubeRest, resourcePath } from './rest.js';
import { readSecret } from './secret-reader.js';
import type { ClusterDirectory, ObjectReader } from './ports.js';

/** A cluster the gateway should be able to read: the management cluster or a GitopsCluster. */
export interface WantedCluster {
  name: string;
  gitopsCluster?: { namespace: string; name: string };
}

/** Builds a reader from a cluster's KubeConfig (injectable so tests can count or fake reads). */
export type ReaderFactory = (kubeConfig: KubeConfig, cluster: string) => ObjectReader;

interface Entry {
  reader?: ObjectReader;
  /** Secret resourceVersion the reader was built from; a change rebuilds it. */
  secretVersion?: string;
  problem?: string;
}

/** What a ClusterRegistry needs. */
export interface ClusterRegistryOptions {
  managementName: string;
  managementConfig: KubeConfig;
  makeReader: ReaderFactory;
  calls: KubeCalls;
  /** Every cluster the gateway must reach now (configured ones and those Pipelines name). */
  wanted: () => readonly WantedCluster[];
  now: () => number;
  /** refreshSoon() re-reads credentials at most this often; default 10 s. */
  minRefreshIntervalMs?: number;
  /** Told each cluster's API server URLs when its kubeconfig is taken, and [] when dropped. */
  onServers?: (cluster: string, servers: readonly string[]) => void;
}

/**
 * One KubeConfig per cluster: the management cluster's own, and for each GitopsCluster the
 * kubeconfig in its Secret. `sync` re-reads GitopsClusters and Secrets (one GET each) and
 * rebuilds a cluster's client only when its Secret changed.
 */
export class ClusterRegistry implements ClusterDirectory {
  private readonly entries = new Map<string, Entry>();
  private readonly rest: KubeRest;
  private readonly managementName: string;
  private lastRefresh = -Infinity;

  constructor(private readonly options: ClusterRegistryOptions) {
    const { managementConfig, managementName } = options;
    this.managementName = managementName;
    this.rest = new KubeRest(managementConfig, options.calls);
    this.entries.set(managementName, {
      reader: options.makeReader(managementConfig, managementName),
    });
    options.onServers?.(managementName, serversOf(managementConfig));
  }

  /** The reader for a cluster, or undefined while its credentials are missing or unusable. */
  reader(cluster: string): ObjectReader | undefined {
    return this.entries.get(cluster)?.reader;
  }

  /** Clusters with a usable reader. */
  clusters(): string[] {
    return [...this.entries].filter(([, e]) => e.reader !== undefined).map(([name]) => name);
  }

  /** Why a cluster has no reader (secret-free), or undefined when it has one. */
  problem(cluster: string): string | undefined {
    const entry = this.entries.get(cluster);
    if (entry === undefined) return `no credentials are known for cluster ${cluster}`;
    return entry.problem;
  }

  /** Sees every read's result: rejected credentials usually mean a rotated Secret. */
  noteReadResult(result: string): void {
    // A rotated token, role or CA shows first as a refused read: read the kubeconfigs again.
    if (result === 'Unauthorized' || result === 'Forbidden' || result === 'CertificateRejected')
      this.refreshSoon();
  }

  /** Resolves every wanted cluster; drops clusters no longer wanted. Never throws. */
  async sync(): Promise<void> {
    const wanted = this.options.wanted();
    const names = new Set(wanted.map((w) => w.name));
    for (const name of [...this.entries.keys()]) {
      if (name !== this.managementName && !names.has(name)) {
        this.entries.delete(name);
        this.options.onServers?.(name, []);
      }
    }
    await Promise.all(
      wanted.flatMap((w) =>
        w.gitopsCluster === undefined || w.name === this.managementName
          ? []
          : [this.resolve(w.name, w.gitopsCluster)],
      ),
    );
  }

  /**
   * Re-reads credentials in the background, at most once per minRefreshIntervalMs: a cluster
   * that rejects the gateway's credentials has usually had its kubeconfig Secret rotated.
   */
  refreshSoon(): void {
    const now = this.options.now();
    if (now - this.lastRefresh < (this.options.minRefreshIntervalMs ?? 10_000)) return;
    this.lastRefresh = now;
    void this.sync();
  }

  private async resolve(name: string, ref: { namespace: string; name: string }): Promise<void> {
    const previous = this.entries.get(name);
    const result = await this.readKubeconfig(ref, previous?.secretVersion);
    if ('unchanged' in result) return;
    if ('problem' in result) {
      // Keep serving the last good client while the Secret is unreadable for a moment.
      this.entries.set(name, { ...previous, problem: result.problem });
      return;
    }
    this.entries.set(name, {
      reader: this.options.makeReader(result.kubeConfig, name),
      secretVersion: result.version,
    });
    this.options.onServers?.(name, serversOf(result.kubeConfig));
  }

  private async readKubeconfig(
    ref: { namespace: string; name: string },
    knownVersion: string | undefined,
  ): Promise<
    { unchanged: true } | { problem: string } | { kubeConfig: KubeConfig; version: string }
  > {
    try {
      const cluster = (await this.rest.get(
        resourcePath(GITOPS_CLUSTER, ref.namespace, ref.name),
      )) as Parameters<typeof kubeconfigSecretOf>[0];
      const where = kubeconfigSecretOf(cluster);
      if (where === undefined)
        return { problem: `GitopsCluster ${ref.namespace}/${ref.name} names no Secret` };
      const secret = await readSecret(this.rest, ref.namespace, where.name);
      const version = secret.metadata?.resourceVersion ?? '';
      if (version !== '' && version === knownVersion) return { unchanged: true };
      const encoded = where.keys.map((k) => secret.data?.[k]).find((v) => v !== undefined);
      if (encoded === undefined)
        return { problem: `Secret ${ref.namespace}/${where.name} has no kubeconfig key` };
      const parsed = kubeConfigFromSecretValue(Buffer.from(encoded, 'base64').toString('utf8'));
      if (!parsed.ok)
        return { problem: `Secret ${ref.namespace}/${where.name}: ${parsed.message}` };
      return { kubeConfig: parsed.kubeConfig, version };
    } catch (err) {
      const failure = classifyKubeError(err);
      return {
        problem: `GitopsCluster ${ref.namespace}/${ref.name}: ${failure.reason}: ${failure.message}`,
      };
    }
  }
}

/** Every API server a kubeconfig names (not only its current context's): none may be a target. */
function serversOf(kubeConfig: KubeConfig): string[] {
  return kubeConfig.getClusters().map((cluster) => cluster.server);
}
