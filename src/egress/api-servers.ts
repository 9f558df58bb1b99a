/**
 * The Kubernetes API servers this gateway is configured to reach: the management cluster's
 * kubeconfig and every GitopsCluster kubeconfig the cluster registry has read (each server of
 * each), kept up to date as Secrets change. A user-written URL must not reach one: the gateway
 * holds credentials for them and may sit beside them on the network. Names are resolved when
 * asked, at most once a minute per name.
 */
import { lookup } from 'node:dns/promises';
import { canonicalIp, canonicalName } from './ip-address.js';

/** Resolves a host name to its addresses, as dns.lookup with `all: true` does. */
export type Resolver = (host: string) => Promise<readonly { address: string; family: number }[]>;

/** The system's resolver (getaddrinfo, as connections use). */
export const systemResolver: Resolver = (host) => lookup(host, { all: true });

/** How long a resolved API server name is trusted. */
const RESOLVED_FOR_MS = 60_000;

interface Endpoint {
  /** A canonical IP address, or a canonical host name. */
  host: string;
  isIp: boolean;
  port: number;
}

/** The port a URL connects to: its own, or its scheme's default. */
export function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/** The API servers of every cluster the gateway reaches, by cluster. */
export class ApiServerBook {
  private readonly byCluster = new Map<string, readonly Endpoint[]>();
  private readonly resolved = new Map<string, { until: number; ips: Promise<string[]> }>();

  constructor(private readonly options: { resolve: Resolver; now: () => number }) {}

  /** Records the server URLs of `cluster`'s kubeconfig; an empty list forgets the cluster. */
  set(cluster: string, servers: readonly string[]): void {
    const endpoints = servers.flatMap((server): Endpoint[] => {
      const url = URL.parse(server);
      if (url === null) return [];
      const ip = canonicalIp(url.hostname);
      const host = ip ?? canonicalName(url.hostname);
      return [{ host, isIp: ip !== undefined, port: portOf(url) }];
    });
    if (endpoints.length === 0) this.byCluster.delete(cluster);
    else this.byCluster.set(cluster, endpoints);
    const names = new Set(this.endpoints().map((e) => e.host));
    for (const name of this.resolved.keys()) if (!names.has(name)) this.resolved.delete(name);
  }

  /** Whether the canonical host name `name` at `port` is an API server's own name. */
  named(name: string, port: number): boolean {
    return this.endpoints().some((e) => !e.isIp && e.port === port && e.host === name);
  }

  /** Whether the canonical IP address `ip` at `port` is an API server's (names resolved). */
  async at(ip: string, port: number): Promise<boolean> {
    const candidates = this.endpoints().filter((e) => e.port === port);
    if (candidates.some((e) => e.isIp && e.host === ip)) return true;
    const named = candidates.filter((e) => !e.isIp);
    const addresses = await Promise.all(named.map((e) => this.addressesOf(e.host)));
    return addresses.some((ips) => ips.includes(ip));
  }

  private endpoints(): Endpoint[] {
    return [...this.byCluster.values()].flat();
  }

  private addressesOf(name: string): Promise<string[]> {
    const now = this.options.now();
    const known = this.resolved.get(name);
    if (known !== undefined && known.until > now) return known.ips;
    // A name that does not resolve cannot be connected to either: nothing to compare.
    const ips = this.options
      .resolve(name)
      .then((found) => found.flatMap((a) => canonicalIp(a.address) ?? []))
      .catch(() => []);
    this.resolved.set(name, { until: now + RESOLVED_FOR_MS, ips });
    return ips;
  }
}
