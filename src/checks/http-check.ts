/**
 * One run of an HTTP check: GET the URL (admitted by the operator's allow-list and the address
 * policy of src/egress, redirects not followed, bounded in time and size), then compare the
 * status and, optionally, one JSON field. A status that says the service could not answer (408,
 * 429, 5xx), a timeout, an unreachable host, an address the policy refuses or a body that is not
 * JSON is Unknown: the check could not be read. Messages never quote the URL's query, a header,
 * or any secret value.
 */
import type { SecretKeyReader } from '../auth/legacy-keys.js';
import { refusalIn, type AddressGuard } from '../egress/address-guard.js';
import type { FetchLike } from '../outbound/fetch-like.js';
import type { CheckOutcome, HttpCheck } from './resolve.js';
import { valueAt } from './json-path.js';
import { secretHeaders } from '../outbound/secret-headers.js';
import { checkUrl } from '../outbound/url-policy.js';

/** What an HTTP check run needs besides the check. */
export interface HttpCheckDeps {
  /** The HTTP checks' fetch: guardedFetch over `guard` in the gateway; tests may stand in. */
  httpFetch: FetchLike;
  readSecret: SecretKeyReader;
  /** The operator's allow-list (config checks.http.allowedUrlPrefixes) and address policy. */
  guard: AddressGuard;
}

/** Largest answer read when a JSON field is compared. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Runs `check` for `revision` of a Pipeline in `namespace`. Never throws. */
export async function runHttpCheck(
  check: HttpCheck,
  namespace: string,
  revision: string,
  deps: HttpCheckDeps,
): Promise<CheckOutcome> {
  const url = checkUrl(check.url, revision, deps.guard.allowedUrlPrefixes);
  if (typeof url === 'string') return { state: 'Unknown', message: url };
  const refused = await deps.guard.problem(url);
  if (refused !== undefined) return { state: 'Unknown', message: `its url ${refused}` };
  const secret =
    check.secretRef === undefined
      ? { headers: {}, secrets: [] }
      : await secretHeaders(deps.readSecret, namespace, check.secretRef);
  if (typeof secret === 'string') return { state: 'Unknown', message: secret };
  const outcome = await call(url, check, secret.headers, deps.httpFetch);
  return { ...outcome, message: redact(outcome.message, secret.secrets) };
}

async function call(
  url: URL,
  check: HttpCheck,
  headers: Record<string, string>,
  fetch: FetchLike,
): Promise<CheckOutcome> {
  const seconds = String(check.timeoutMs / 1000);
  try {
    const response = await fetch(url.href, {
      method: 'GET',
      headers: { accept: 'application/json', 'user-agent': 'promotion-gateway', ...headers },
      // A redirect could lead past the allow-list, with the Secret's headers.
      redirect: 'manual',
      signal: AbortSignal.timeout(check.timeoutMs),
    });
    const judged = judgeStatus(response.status, check.status);
    if (judged !== undefined || check.json === undefined) {
      await response.body?.cancel().catch(() => undefined);
      return judged ?? { state: 'Passed', message: `answered HTTP ${String(response.status)}` };
    }
    const body = await readLimited(response, MAX_BODY_BYTES);
    if (body === undefined)
      return {
        state: 'Unknown',
        message: `answered with more than ${String(MAX_BODY_BYTES)} bytes`,
      };
    return judgeJson(response.status, body, check.json);
  } catch (err) {
    const timedOut = err instanceof Error && ['TimeoutError', 'AbortError'].includes(err.name);
    // The connection's own check refused what the host resolved to by then (names no path).
    const refused = refusalIn(err);
    if (refused !== undefined) return { state: 'Unknown', message: `its url ${refused.message}` };
    // Transport errors can quote the URL: none of their text is kept.
    return {
      state: 'Unknown',
      message: timedOut ? `did not answer within ${seconds} s` : 'could not be reached',
    };
  }
}

/** Failed or Unknown for a status that does not pass; undefined when it does. */
function judgeStatus(status: number, expected: number | undefined): CheckOutcome | undefined {
  if (expected === undefined ? status >= 200 && status < 300 : status === expected)
    return undefined;
  const got = `answered HTTP ${String(status)}`;
  // The service could not answer now: that says nothing about the revision.
  if (status === 408 || status === 429 || status >= 500) return { state: 'Unknown', message: got };
  const want = expected === undefined ? '2xx' : String(expected);
  const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
  return { state: 'Failed', message: `${got}, expected ${want}${redirect}` };
}

function judgeJson(
  status: number,
  body: Buffer,
  json: NonNullable<HttpCheck['json']>,
): CheckOutcome {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return {
      state: 'Unknown',
      message: `answered HTTP ${String(status)} with a body that is not JSON`,
    };
  }
  const field = JSON.stringify(json.path);
  const found = valueAt(parsed, json.path);
  if (!found.found) return { state: 'Failed', message: `answered with no field ${field}` };
  const want = JSON.stringify(json.equals);
  if (textOf(found.value) === json.equals)
    return { state: 'Passed', message: `answered HTTP ${String(status)} with ${field} = ${want}` };
  return {
    state: 'Failed',
    message: `answered with ${field} = ${shown(found.value)}, expected ${want}`,
  };
}

/** A scalar as `equals` writes it: a string as is, others as their JSON; containers never match. */
function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value === null || typeof value === 'number' || typeof value === 'boolean')
    return JSON.stringify(value);
  return undefined;
}

/** A field's value in a message: a short JSON scalar as written, anything else described. */
function shown(value: unknown): string {
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) {
    const text = JSON.stringify(value);
    if (text.length <= 64) return text;
  }
  return Array.isArray(value)
    ? 'an array'
    : typeof value === 'object'
      ? 'an object'
      : 'a long value';
}

/** The whole body, or undefined past `limit` bytes (the rest is not read). */
async function readLimited(response: Response, limit: number): Promise<Buffer | undefined> {
  const stream: ReadableStream<Uint8Array> | null = response.body;
  if (stream === null) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.byteLength;
    // Leaving the loop cancels the stream: the rest is never read.
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** `text` with every secret value replaced: an answer may echo what it was sent. */
export function redact(text: string, secrets: readonly string[]): string {
  return secrets.reduce((out, secret) => out.replaceAll(secret, '[redacted]'), text);
}
