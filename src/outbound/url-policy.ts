/**
 * Where an HTTP check may call. A check's URL comes from a Pipeline, and the gateway calls it
 * from inside the cluster, so a Pipeline author could point it at internal services: the
 * operator's allow-list (`checks.http.allowedUrlPrefixes`, empty by default) admits URLs by
 * scheme, host, port and path prefix after WHATWG normalisation (`..` resolved, default ports
 * dropped). Nothing is admitted by default. Pure.
 */
import { REVISION_PLACEHOLDER } from './commit-ref.js';

/**
 * The URL to call for `revision` (the placeholder replaced, URL-encoded), or a sentence saying
 * why the check may not call it. Never quotes the URL's query, which may hold a key.
 */
export function checkUrl(
  template: string,
  revision: string,
  allowedPrefixes: readonly string[],
): URL | string {
  const text = template.replaceAll(REVISION_PLACEHOLDER, encodeURIComponent(revision));
  if (!URL.canParse(text)) return 'its url is not a URL';
  const url = new URL(text);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'its url must be http or https';
  if (url.username !== '' || url.password !== '')
    return 'its url must not hold credentials: put them in the Secret';
  if (allowedPrefixes.length === 0)
    return 'HTTP checks are not enabled in this gateway (its checks.http.allowedUrlPrefixes is empty)';
  if (!allowedPrefixes.some((prefix) => admits(prefix, url)))
    return `${url.protocol}//${url.host}${url.pathname} is not admitted by the gateway's checks.http.allowedUrlPrefixes`;
  url.hash = '';
  return url;
}

/**
 * Whether the allow-list entry `prefix` admits `url`: the same scheme and host (port included),
 * and a path that is the prefix's or lies below it (`/api` admits `/api` and `/api/x`, not
 * `/apix`; `/api/` admits `/api/x`). An entry that is not a URL admits nothing.
 */
export function admits(prefix: string, url: URL): boolean {
  if (!URL.canParse(prefix)) return false;
  const allowed = new URL(prefix);
  if (allowed.protocol !== url.protocol || allowed.host !== url.host) return false;
  if (allowed.username !== '' || allowed.password !== '') return false;
  const path = allowed.pathname;
  if (path.endsWith('/')) return url.pathname.startsWith(path);
  return url.pathname === path || url.pathname.startsWith(`${path}/`);
}
