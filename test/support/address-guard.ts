/**
 * AddressGuards for tests: the operator's list, the API servers of named clusters and a
 * resolver the test writes (host name -> addresses; a name it does not list does not resolve).
 */
import { AddressGuard } from '../../src/egress/address-guard.js';
import { ApiServerBook, type Resolver } from '../../src/egress/api-servers.js';

/** A resolver answering from `names`, counting the lookups it was asked. */
export function fakeResolver(names: Record<string, string[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = (host: string) => {
    asked.push(host);
    const addresses = Object.hasOwn(names, host) ? names[host] : undefined;
    if (addresses === undefined)
      return Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }));
    return Promise.resolve(
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
  return Object.assign(resolve, { asked });
}

/** A guard over `allowedUrlPrefixes`, with `servers` (cluster -> server URLs) as API servers. */
export function testGuard(
  allowedUrlPrefixes: readonly string[],
  options: { resolve?: Resolver; servers?: Record<string, string[]>; setting?: string } = {},
): AddressGuard {
  const resolve = options.resolve ?? fakeResolver({});
  const apiServers = new ApiServerBook({ resolve, now: () => 0 });
  for (const [cluster, servers] of Object.entries(options.servers ?? {}))
    apiServers.set(cluster, servers);
  return new AddressGuard({
    allowedUrlPrefixes,
    setting: options.setting ?? 'checks.http.allowedUrlPrefixes',
    apiServers,
    resolve,
  });
}
