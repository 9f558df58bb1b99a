/**
 * Small HTTP helpers shared by the REST fronts: bodies, JSON answers, and route tables whose
 * templates are also the names requests are counted under.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { readBody as readLimited } from 'sim-kit';

/** Largest REST request body accepted (pull-request bodies are small). */
const MAX_API_BODY = 1024 * 1024;

/** Thrown by handlers to answer with a forge-shaped error. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: OutgoingHttpHeaders = {},
  ) {
    super(`HTTP ${String(status)}`);
  }
}

/** Reads a whole request body (REST calls only; Git bodies are streamed). */
export function readBody(req: IncomingMessage, limit = MAX_API_BODY): Promise<Buffer> {
  return readLimited(req, limit, () => new HttpError(413, { message: 'Request body too large' }));
}

/** A JSON or form-encoded request body as a flat record (GitLab accepts both). */
export function parseParams(raw: Buffer, contentType: string | undefined): Record<string, unknown> {
  const text = raw.toString('utf8');
  if (text.trim() === '') return {};
  if (contentType?.includes('application/x-www-form-urlencoded') === true)
    return Object.fromEntries(new URLSearchParams(text));
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // Falls through: the forges answer a body they cannot parse as a bad request.
  }
  throw new HttpError(400, { message: 'Problems parsing JSON' });
}

/** Sends `body` as JSON. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: OutgoingHttpHeaders = {},
): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(payload),
    ...headers,
  });
  res.end(payload);
}

/** Sends plain text. */
export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  headers: OutgoingHttpHeaders = {},
): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** One REST route: `template` like '/repos/{owner}/{repo}/pulls/{pull_number}'. */
export interface Route<H> {
  method: string;
  template: string;
  pattern: RegExp;
  handler: H;
}

/** Compiles a route; `{name}` matches one segment, `{name+}` the rest of the path. */
export function route<H>(method: string, template: string, handler: H): Route<H> {
  const source = template
    .split('/')
    .map((seg) => {
      if (/^\{\w+\+\}$/.test(seg)) return '(.+)';
      if (/^\{\w+\}$/.test(seg)) return '([^/]+)';
      return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return { method, template, pattern: new RegExp(`^${source}$`), handler };
}

/** The route matching `method` and `path`, with its decoded parameters. */
export function matchRoute<H>(
  routes: Route<H>[],
  method: string,
  path: string,
): { route: Route<H>; params: string[] } | undefined {
  for (const r of routes) {
    if (r.method !== method) continue;
    const m = r.pattern.exec(path);
    if (m !== null) return { route: r, params: m.slice(1).map((p) => decodeURIComponent(p)) };
  }
  return undefined;
}

/** An ISO timestamp without milliseconds, as GitHub writes them. */
export function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** An ISO timestamp with milliseconds, as GitLab writes them. */
export function isoMillis(ms: number): string {
  return new Date(ms).toISOString();
}

/** A string field of a request body, or undefined when absent or not a string. */
export function str(params: Record<string, unknown>, key: string): string | undefined {
  const v = params[key];
  return typeof v === 'string' ? v : undefined;
}
