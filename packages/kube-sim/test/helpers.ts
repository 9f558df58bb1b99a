/**
 * Raw HTTPS calls to a simulated cluster (trusting its self-signed certificate), for tests that
 * need to see the exact wire: status codes, headers, Status bodies and watch streams.
 */
import { request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { SimCluster } from '../src/index.js';

/** A completed response. */
export interface RawResponse {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
  json: () => Record<string, unknown>;
}

/** Options of one raw call. */
export interface RawOptions {
  method?: string;
  body?: unknown;
  contentType?: string;
  user?: string;
  token?: string | null;
  /** Extra request headers (an Accept here replaces the default application/json). */
  headers?: Record<string, string>;
}

/** Starts a request and resolves with the response stream (for watches). */
export function open(
  cluster: SimCluster,
  path: string,
  opts: RawOptions = {},
): Promise<IncomingMessage> {
  const url = new URL(path, cluster.url);
  const headers: Record<string, string> = { Accept: 'application/json', ...opts.headers };
  const token = opts.token === undefined ? cluster.tokenFor(opts.user ?? 'admin') : opts.token;
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  const payload =
    opts.body === undefined
      ? undefined
      : typeof opts.body === 'string'
        ? opts.body
        : JSON.stringify(opts.body);
  if (payload !== undefined) headers['Content-Type'] = opts.contentType ?? 'application/json';
  const ca = Buffer.from(cluster.caData ?? '', 'base64');
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? 'GET', headers, ca, agent: false }, resolve);
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** A full request/response. */
export async function call(
  cluster: SimCluster,
  path: string,
  opts: RawOptions = {},
): Promise<RawResponse> {
  const res = await open(cluster, path, opts);
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  return {
    status: res.statusCode ?? 0,
    headers: res.headers,
    body,
    json: () => JSON.parse(body) as Record<string, unknown>,
  };
}

/** Reads newline-delimited watch events from a stream until `count` arrived or it ended. */
export function readEvents(
  res: IncomingMessage,
  count: number,
): Promise<{ events: { type: string; object: Record<string, unknown> }[]; ended: boolean }> {
  return new Promise((resolve) => {
    const events: { type: string; object: Record<string, unknown> }[] = [];
    let buffer = '';
    let done = false;
    const finish = (ended: boolean): void => {
      if (done) return;
      done = true;
      res.removeAllListeners('data');
      resolve({ events, ended });
    };
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let nl = buffer.indexOf('\n');
      while (nl >= 0) {
        events.push(
          JSON.parse(buffer.slice(0, nl)) as { type: string; object: Record<string, unknown> },
        );
        buffer = buffer.slice(nl + 1);
        nl = buffer.indexOf('\n');
      }
      if (events.length >= count) finish(false);
    });
    res.on('end', () => {
      finish(true);
    });
  });
}
