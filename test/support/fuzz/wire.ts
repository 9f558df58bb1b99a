/**
 * Sends a fuzzed request and reads every answer that comes back: through fetch (what a real
 * client library does) or through a raw socket, whose framing may be broken on purpose
 * (Content-Length too short, too long, twice, not a number; chunked with and without a length,
 * bad chunks; HTTP/1.0; a head cut short; two requests in one write). A request the server
 * must still wait on is half-closed so the parser sees the end at once, never a timeout.
 */
import { connect } from 'node:net';

/** How the request's bytes are framed on a raw socket. */
export const FRAMINGS = [
  'exact',
  'chunked',
  'chunked-and-length',
  'short-length',
  'long-length',
  'no-length',
  'bad-length',
  'double-length',
  'bad-chunks',
  'http10',
  'truncated-head',
  'pipelined',
] as const;

/** One framing of FRAMINGS. */
export type Framing = (typeof FRAMINGS)[number];

/** Through fetch, or raw bytes framed one way. */
export type Wire = { kind: 'fetch' } | { kind: 'raw'; framing: Framing };

/** One request as the fuzzer made it. */
export interface WireRequest {
  method: string;
  path: string;
  headers: readonly (readonly [string, string])[];
  body: Buffer;
  wire: Wire;
}

/** One HTTP answer: status, headers (lower-case names, duplicates joined) and body bytes. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Every answer a request got; `unsent` when the client itself refused to send it. */
export interface Exchange {
  answers: Answer[];
  unsent?: string;
  timedOut?: boolean;
}

const TIMEOUT_MS = 5_000;
const HEAD_END = Buffer.from('\r\n\r\n');

/** Sends `request` to 127.0.0.1:`port` and collects what came back. */
export function send(port: number, request: WireRequest): Promise<Exchange> {
  return request.wire.kind === 'fetch'
    ? sendFetch(port, request)
    : sendRaw(port, request, request.wire.framing);
}

async function sendFetch(port: number, request: WireRequest): Promise<Exchange> {
  const bodyless = request.method === 'GET' || request.method === 'HEAD';
  let response: Response;
  try {
    response = await fetch(`http://127.0.0.1:${String(port)}${request.path}`, {
      method: request.method,
      headers: request.headers.map(([n, v]) => [n, v] as [string, string]),
      ...(bodyless ? {} : { body: request.body }),
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    // fetch refuses some methods and header values itself: that request never left.
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    if (error instanceof TypeError && !(typeof code === 'string' && code.startsWith('ECONN')))
      return { answers: [], unsent: error.message };
    throw error;
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  if (headers['content-type']?.startsWith('text/event-stream') === true) {
    await response.body?.cancel();
    return { answers: [{ status: response.status, headers, body: Buffer.alloc(0) }] };
  }
  const body = Buffer.from(await response.arrayBuffer());
  return { answers: [{ status: response.status, headers, body }] };
}

function chunks(body: Buffer, broken: boolean): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length; at += 7) {
    const piece = body.subarray(at, at + 7);
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(broken ? 'zz\r\n' : '0\r\n\r\n'));
  return Buffer.concat(parts);
}

/** The request's bytes under `framing`, and whether the server would wait for more. */
export function frame(request: WireRequest, framing: Framing): { bytes: Buffer; waits: boolean } {
  const { method, path, body } = request;
  const version = framing === 'http10' ? 'HTTP/1.0' : 'HTTP/1.1';
  const lines = [`${method} ${path} ${version}`, 'Host: gateway.test', 'Connection: close'];
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  const length = (n: number | string) => lines.push(`Content-Length: ${String(n)}`);
  let payload = body;
  if (framing === 'exact' || framing === 'http10' || framing === 'pipelined') length(body.length);
  if (framing === 'short-length') length(Math.max(0, body.length - 3));
  if (framing === 'long-length') length(body.length + 5);
  if (framing === 'bad-length') length('12abc');
  if (framing === 'double-length') {
    length(body.length);
    length(body.length + 1);
  }
  if (framing.startsWith('chunked') || framing === 'bad-chunks') {
    lines.push('Transfer-Encoding: chunked');
    if (framing === 'chunked-and-length') length(body.length);
    payload = chunks(body, framing === 'bad-chunks');
  }
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  if (framing === 'truncated-head')
    return { bytes: head.subarray(0, head.length - 3), waits: true };
  const one = Buffer.concat([head, payload]);
  if (framing !== 'pipelined')
    return { bytes: one, waits: framing === 'long-length' || framing === 'bad-chunks' };
  const keepAlive = Buffer.from(
    one.toString('latin1').replace('Connection: close', 'Connection: keep-alive'),
    'latin1',
  );
  return { bytes: Buffer.concat([keepAlive, one]), waits: false };
}

function sendRaw(port: number, request: WireRequest, framing: Framing): Promise<Exchange> {
  const { bytes, waits } = frame(request, framing);
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let done = false;
    const finish = (timedOut: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const answers = parseAnswers(Buffer.concat(received), request.method === 'HEAD');
      resolve(timedOut ? { answers, timedOut } : { answers });
    };
    const timer = setTimeout(() => {
      finish(true);
    }, TIMEOUT_MS);
    socket.on('connect', () => {
      socket.write(bytes);
      if (waits) socket.end();
    });
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      // A live stream never ends by itself: its head is the answer.
      if (isEventStream(Buffer.concat(received))) finish(false);
    });
    const closed = () => {
      finish(false);
    };
    socket.on('error', closed);
    socket.on('close', closed);
  });
}

function isEventStream(bytes: Buffer): boolean {
  const end = bytes.indexOf(HEAD_END);
  return (
    end >= 0 &&
    /\r\ncontent-type: text\/event-stream/i.test(bytes.subarray(0, end).toString('latin1'))
  );
}

function parseHead(text: string): { status: number; headers: Record<string, string> } {
  const [statusLine = '', ...lines] = text.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return { status, headers };
}

function dechunk(bytes: Buffer): { body: Buffer; used: number } {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = bytes.indexOf('\r\n', at);
    if (eol < 0) return { body: Buffer.concat(parts), used: bytes.length };
    const size = parseInt(bytes.subarray(at, eol).toString('latin1'), 16);
    if (!(size > 0)) return { body: Buffer.concat(parts), used: Math.min(bytes.length, eol + 4) };
    parts.push(bytes.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

/**
 * Every complete answer in `bytes`, informational ones (100 Continue) skipped; answers to HEAD
 * (`bodiless`) have a Content-Length but no body.
 */
export function parseAnswers(bytes: Buffer, bodiless = false): Answer[] {
  const answers: Answer[] = [];
  let rest = bytes;
  while (rest.length > 0) {
    const end = rest.indexOf(HEAD_END);
    if (end < 0) break;
    const { status, headers } = parseHead(rest.subarray(0, end).toString('latin1'));
    rest = rest.subarray(end + 4);
    if (status >= 100 && status < 200) continue;
    if (headers['transfer-encoding'] === 'chunked') {
      const { body, used } = dechunk(rest);
      answers.push({ status, headers, body });
      rest = rest.subarray(used);
      continue;
    }
    const length = bodiless ? 0 : Number(headers['content-length'] ?? rest.length);
    answers.push({ status, headers, body: rest.subarray(0, length) });
    rest = rest.subarray(length);
  }
  return answers;
}
