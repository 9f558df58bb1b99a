/**
 * Where a PromotionAlert may deliver. Its address is written by whoever may create an alert in
 * its namespace (or put in the Secret it names), and the gateway posts from inside the cluster,
 * so the operator may list the receivers (`notifications.allowedUrlPrefixes`, with the rules of
 * an HTTP check's allow-list: scheme, host and port, path prefix after WHATWG normalisation;
 * an empty list admits any http(s) address), and whatever the list, the address policy of
 * src/egress refuses internal addresses that no IP-literal entry of the list opens.
 */
import { admits } from '../outbound/url-policy.js';
import type { AddressGuard } from '../egress/address-guard.js';

/**
 * Why `address` may not be delivered to under `allowedPrefixes`, or undefined when it may. The
 * sentence names the scheme and host only: an address's path or query may hold its secret (a
 * Slack or Teams webhook's does). Pure: the address policy is addressRefusal's.
 */
export function addressProblem(
  address: string,
  allowedPrefixes: readonly string[],
): string | undefined {
  if (allowedPrefixes.length === 0) return undefined;
  if (!URL.canParse(address)) return 'address: is not a URL';
  const url = new URL(address);
  if (allowedPrefixes.some((prefix) => admits(prefix, url))) return undefined;
  return `address: ${url.protocol}//${url.host}/… is not admitted by the gateway's notifications.allowedUrlPrefixes`;
}

/**
 * Why the address policy refuses `address` (its host, or what the host resolves to now), or
 * undefined when it does not; like addressProblem, the sentence names the scheme and host only.
 */
export async function addressRefusal(
  address: string,
  guard: AddressGuard,
): Promise<string | undefined> {
  const url = URL.parse(address);
  if (url === null) return 'address: is not a URL';
  const problem = await guard.problem(url);
  return problem === undefined ? undefined : `address: ${problem}`;
}
