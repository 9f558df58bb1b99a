/**
 * Credentials carried by URLs, kept out of every line a person or a log reads. A kubeconfig
 * server, a `--send` or `--address` flag, a pull request's link or an error quoting any of them
 * may hold `https://user:password@host` or `?access_token=...`; kubectl and client-go print such
 * a server with its password masked. Here the whole userinfo goes (a token is often the user
 * part: `https://ghp_...@github.com`), and so does the value of every query or fragment parameter
 * whose name says it carries a credential. Pure, and idempotent.
 */

/** What stands in for a credential. */
export const REDACTED_CREDENTIAL = '[REDACTED]';

/**
 * A URL inside free text: a scheme, `://`, then anything up to a space, a quote, an angle
 * bracket or a backslash (so a URL inside JSON text ends before an escape, and the JSON stays
 * valid once redacted).
 */
const URL_IN_TEXT = /[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`\\]+/gi;

/** Parameter names (lower case) that are credentials wherever they appear. */
const SECRET_PARAMETERS: ReadonlySet<string> = new Set([
  'sig',
  'key',
  'code',
  'auth',
  'jwt',
  'pwd',
  'passwd',
  'apikey',
  'api_key',
  'api-key',
  'session',
  'sessionid',
  'assertion',
  'authorization',
]);

/** Parts of a parameter name that make it a credential: `access_token`, `X-Amz-Signature`. */
const SECRET_NAME_PARTS = ['token', 'secret', 'password', 'signature', 'credential'];

function secretParameter(name: string): boolean {
  let lower = name.toLowerCase();
  try {
    lower = decodeURIComponent(lower);
  } catch {
    // Not percent-encoded text: judged as written.
  }
  return SECRET_PARAMETERS.has(lower) || SECRET_NAME_PARTS.some((part) => lower.includes(part));
}

/** `a=1&token=x` with each credential's value replaced. */
function redactParameters(text: string): string {
  return text
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0 || !secretParameter(pair.slice(0, eq))) return pair;
      return `${pair.slice(0, eq + 1)}${REDACTED_CREDENTIAL}`;
    })
    .join('&');
}

/** One URL's text with its userinfo and credential parameters replaced. */
function redactUrl(url: string): string {
  const schemeEnd = url.indexOf('://') + 3;
  const rest = url.slice(schemeEnd);
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd < 0 ? rest : rest.slice(0, authorityEnd);
  // Where the text is no URL (a `/` in an unencoded password ends the authority early), the
  // last `@` of it is taken as the end of a userinfo: a credential is never left in place.
  const at = URL.canParse(url) ? authority.lastIndexOf('@') : rest.lastIndexOf('@');
  const host = at < 0 ? rest : `${REDACTED_CREDENTIAL}@${rest.slice(at + 1)}`;
  const hash = host.indexOf('#');
  const beforeHash = hash < 0 ? host : host.slice(0, hash);
  const fragment = hash < 0 ? '' : `#${redactParameters(host.slice(hash + 1))}`;
  const query = beforeHash.indexOf('?');
  const path = query < 0 ? beforeHash : beforeHash.slice(0, query);
  const search = query < 0 ? '' : `?${redactParameters(beforeHash.slice(query + 1))}`;
  return `${url.slice(0, schemeEnd)}${path}${search}${fragment}`;
}

/**
 * `text` with the credentials of every URL in it replaced by `[REDACTED]`: the userinfo, and the
 * values of credential parameters (`token`, `access_token`, `sig`, `X-Amz-Signature`, ...).
 */
export function redactUrls(text: string): string {
  if (!text.includes('://')) return text;
  return text.replace(URL_IN_TEXT, redactUrl);
}
