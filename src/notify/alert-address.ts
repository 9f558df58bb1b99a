/**
 * Where a PromotionAlert may deliver. Its address is written by whoever may create an alert in
 * its namespace (or put in the Secret it names), and the gateway posts from inside the cluster,
 * so the operator may list the receivers (`notifications.allowedUrlPrefixes`, with the rules of
 * an HTTP check's allow-list: scheme, host and port, path prefix after WHATWG normalisation).
 * An empty list admits any http(s) address. Pure.
 */
import { admits } from '../checks/url-policy.js';

/**
 * Why `address` may not be delivered to under `allowedPrefixes`, or undefined when it may. The
 * sentence names the scheme and host only: an address's path or query may hold its secret (a
 * Slack or Teams webhook's does).
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
