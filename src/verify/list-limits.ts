/**
 * How many LISTs a pass has in flight: LISTS_IN_FLIGHT in all, shared out over the clusters
 * it reads, LISTS_PER_CLUSTER at most to one cluster.
 *
 * Why share out: each LIST in flight to a cluster at once needs a connection of its own, and a
 * TLS connection costs about 140 KB of the C heap, which glibc keeps once it is freed. With 4
 * per cluster, a pass over 50 clusters opened 150 connections for its 16 LISTs in flight
 * (three scopes per cluster, sent together); with one each it opens 50, and keeps the same 16
 * in flight (docs/adr/0014-list-connections-shared-out-over-clusters.md). A fleet of a few
 * clusters still gets 4 to each.
 */
import { Limiter } from '../queue/limiter.js';

/** LISTs in flight to one cluster at most: a handful keeps an API server busy, not flooded. */
export const LISTS_PER_CLUSTER = 4;
/**
 * LISTs in flight in all: with one page each (LIST_PAGE_SIZE objects), this bounds what a pass
 * holds in memory at 8,000 objects.
 */
export const LISTS_IN_FLIGHT = 16;

/** A cluster's share of LISTS_IN_FLIGHT when a pass reads `clusters` clusters: 1 to 4. */
export function listsPerCluster(clusters: number): number {
  const share = Math.floor(LISTS_IN_FLIGHT / Math.max(1, clusters));
  return Math.max(1, Math.min(LISTS_PER_CLUSTER, share));
}

/** The limits of one gateway's LISTs; shared by its passes and their confirmation rounds. */
export class ListLimits {
  private readonly inFlight = new Limiter(LISTS_IN_FLIGHT);
  private readonly clusters = new Map<string, Limiter>();
  private perCluster = LISTS_PER_CLUSTER;

  /** Shares the LISTs out over the clusters a pass is about to read (those from now on too). */
  spreadOver(clusters: ReadonlySet<string>): void {
    this.perCluster = listsPerCluster(clusters.size);
    for (const [cluster, limiter] of this.clusters) {
      if (clusters.has(cluster)) limiter.resize(this.perCluster);
      // A cluster no pass reads any more: its limiter goes once idle; a later one is new.
      else if (limiter.idle()) this.clusters.delete(cluster);
    }
  }

  /** Runs one LIST to `cluster` once both its cluster's and the gateway's limits allow. */
  run<T>(cluster: string, list: () => Promise<T>): Promise<T> {
    let limiter = this.clusters.get(cluster);
    if (limiter === undefined) {
      limiter = new Limiter(this.perCluster);
      this.clusters.set(cluster, limiter);
    }
    return limiter.run(() => this.inFlight.run(list));
  }
}
