/**
 * A fleet of simulated clusters with one admin endpoint (faults, accounting, compaction) on its
 * own port, and kubeconfigs with one context per cluster.
 */
import { writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startAdminServer } from './admin.js';
import type { SimClusterOptions } from './cluster.js';
import { SimCluster } from './cluster.js';
import { renderKubeconfig } from './kubeconfig.js';
import { selfSignedCertificate } from './tls.js';

/** Options of `startFleet`. */
export interface FleetOptions extends Omit<SimClusterOptions, 'name' | 'port'> {
  /** Cluster names; the first is the kubeconfig's current context. */
  clusters: string[];
  /** First API port; cluster i listens on basePort + i. Omitted or 0 = ephemeral ports. */
  basePort?: number;
  /** Admin endpoint port; 0 or omitted = ephemeral. */
  adminPort?: number;
  /** false disables the admin endpoint. Default true. */
  admin?: boolean;
}

/** A running fleet. */
export interface Fleet {
  /** Clusters in the order given. */
  readonly clusters: readonly SimCluster[];
  /** The named cluster; throws for an unknown name. */
  cluster(name: string): SimCluster;
  /** Base URL of the admin endpoint ('' when disabled). */
  readonly adminUrl: string;
  /** Kubeconfig YAML with one context per cluster for `user` (default admin); current = first. */
  kubeconfig(user?: string): string;
  /** Writes `kubeconfig(user)` to `path` (mode 0600, it holds tokens). */
  writeKubeconfig(path: string, user?: string): Promise<void>;
  /** Adds a user with the same rules to every cluster; returns cluster name -> token. */
  addUser(name: string, rules: Parameters<SimCluster['addUser']>[1]): Record<string, string>;
  /** Stops every cluster and the admin endpoint. */
  close(): Promise<void>;
}

/** Starts the clusters (and the admin endpoint) and resolves once all listen. */
export async function startFleet(opts: FleetOptions): Promise<Fleet> {
  if (opts.clusters.length === 0) throw new Error('kube-sim: a fleet needs at least one cluster');
  if (new Set(opts.clusters).size !== opts.clusters.length)
    throw new Error('kube-sim: cluster names must be unique');
  const { clusters: names, basePort, adminPort, admin, ...clusterOpts } = opts;
  const clusters: SimCluster[] = [];
  // One certificate for the whole fleet: cheaper, and one CA in every kubeconfig entry.
  const tls =
    clusterOpts.tls === undefined || clusterOpts.tls === true
      ? selfSignedCertificate()
      : clusterOpts.tls;
  try {
    for (const [i, name] of names.entries()) {
      const port = basePort !== undefined && basePort > 0 ? basePort + i : 0;
      clusters.push(
        await SimCluster.start({
          ...clusterOpts,
          tls,
          name,
          port,
        }),
      );
    }
  } catch (err) {
    await Promise.all(clusters.map((c) => c.close()));
    throw err;
  }
  const byName = new Map(clusters.map((c) => [c.name, c]));
  const cluster = (name: string): SimCluster => {
    const c = byName.get(name);
    if (c === undefined) throw new Error(`kube-sim: no cluster named ${name}`);
    return c;
  };
  let adminServer: Server | undefined;
  let adminUrl = '';
  if (admin !== false) {
    adminServer = await startAdminServer(byName, opts.host ?? '127.0.0.1', adminPort ?? 0);
    adminUrl = `http://${opts.host ?? '127.0.0.1'}:${(adminServer.address() as AddressInfo).port}`;
  }
  const kubeconfig = (user = 'admin'): string =>
    renderKubeconfig(
      clusters.map((c) => ({
        cluster: c.name,
        server: c.url,
        user,
        token: c.tokenFor(user),
        caData: c.caData,
      })),
    );
  return {
    clusters,
    cluster,
    adminUrl,
    kubeconfig,
    async writeKubeconfig(path: string, user?: string): Promise<void> {
      await writeFile(path, kubeconfig(user), { mode: 0o600 });
    },
    addUser(name, rules): Record<string, string> {
      return Object.fromEntries(clusters.map((c) => [c.name, c.addUser(name, rules)]));
    },
    async close(): Promise<void> {
      const closing = clusters.map((c) => c.close());
      if (adminServer !== undefined) {
        const s = adminServer;
        closing.push(
          new Promise<void>((resolve) => {
            s.close(() => {
              resolve();
            });
            s.closeAllConnections();
          }),
        );
      }
      await Promise.all(closing);
    },
  };
}
