/**
 * Raw HTTPS calls to a simulated cluster (trusting its self-signed certificate), for tests that
 * need to see the exact wire: status codes, headers, Status bodies and watch streams.
 */
import { request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { request } from 'node:https';
import type { Agent } from 'node:https';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
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
  /** A keep-alive agent to reuse connections with; default a new connection per call. */
  agent?: Agent;
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
    const agent = opts.agent ?? false;
    const req = request(url, { method: opts.method ?? 'GET', headers, ca, agent }, resolve);
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

/** A call to a fleet's admin endpoint, with its status and parsed JSON body. */
export function admin(
  adminUrl: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const url = new URL(path, adminUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method, headers: { 'Content-Type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          resolve({
            status: res.statusCode ?? 0,
            json: text === '' ? undefined : JSON.parse(text),
          });
        });
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(JSON.stringify(body));
    req.end();
  });
}

/** A bare TCP connection to the cluster's port, open and silent (no TLS spoken yet). */
export function tcpConnection(cluster: SimCluster): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(cluster.port, '127.0.0.1');
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      // What follows (a reset by the server) is what the tests wait for, not a failure.
      socket.on('error', () => undefined);
      resolve(socket);
    });
  });
}

/** The bytes of a TLS ClientHello: a client's first flight, captured without any server. */
export function clientHello(): Promise<Buffer> {
  return new Promise((resolve) => {
    const client = tlsConnect({
      socket: new Duplex({
        read: () => undefined,
        write: (chunk: Buffer, _encoding, done) => {
          resolve(chunk);
          done();
          // The first write may come before tlsConnect returns: end the client a turn later.
          setImmediate(() => client.destroy());
        },
      }),
      rejectUnauthorized: false,
    });
    client.on('error', () => undefined);
  });
}

/** Resolves once the socket has closed (at once if it has already). */
export function closed(socket: Socket): Promise<void> {
  if (socket.closed) return Promise.resolve();
  return new Promise((resolve) => {
    socket.once('close', () => {
      resolve();
    });
  });
}

/** Resolves with `work`, or rejects if it has not settled within `ms` (a bound, not a speed test). */
export async function settlesWithin<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`not settled within ${String(ms)} ms`));
    }, ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
