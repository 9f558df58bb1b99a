/**
 * What a hostile or broken client sends around a door's request: other methods, paths
 * percent-encoded, overlong, traversal-like or in unicode, extra and duplicated headers (an odd
 * Authorization scheme, an X-Signature of the wrong shape, a missing, duplicated or oversized
 * Content-Type, Standard Webhooks headers signed with a real key, which no inbound door takes),
 * bodies of any shape (random, deeply nested, huge numbers, wrong types, prototype keys, not
 * JSON, not UTF-8, empty, over the limit) and broken framing on a raw socket.
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import type { Validity } from './claims.js';
import { FRAMINGS, type Framing, type Wire, type WireRequest } from './wire.js';

/** A door's request before noise: what it is, and what the door must answer if sent so. */
export interface CleanRequest {
  method: string;
  path: string;
  headers: [string, string][];
  body: Buffer;
  validity: Validity;
  label: string;
  /** The status a clean request with a valid credential gets, and whether it changes state. */
  expected?: { status: number; effect: boolean };
}

/** A request ready to send, its credential's validity after noise, and whether it is clean. */
export interface FuzzCase {
  request: WireRequest;
  validity: Validity;
  clean: boolean;
  label: string;
  expected?: { status: number; effect: boolean };
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const RAW_ONLY_METHODS = ['TRACE', 'PROPFIND', 'FOO', 'get', 'POST\u0000', 'GET /x'];

/** A key's Standard Webhooks signature of `body`: valid-looking, and no credential here. */
function standardWebhooks(key: Buffer, body: Buffer, id: string): [string, string][] {
  const ts = String(Math.floor(Date.now() / 1000));
  const mac = createHmac('sha256', key).update(`${id}.${ts}.${body.toString('utf8')}`);
  return [
    ['webhook-id', id],
    ['webhook-timestamp', ts],
    ['webhook-signature', `v1,${mac.digest('base64')}`],
  ];
}

/** Turns a request's headers (and body, for a signature over it) into noisier ones. */
type HeaderNoise = (headers: [string, string][], body: Buffer) => [string, string][];

/**
 * Headers added (never a credential that verifies), or the Content-Type taken away; a
 * credential already sent is never removed, so noise cannot make an invalid request valid.
 */
function headerNoise(keys: readonly Buffer[]): fc.Arbitrary<HeaderNoise> {
  const token = fc.stringMatching(/^[A-Za-z0-9._~+/-]{0,40}=*$/);
  const fixed = fc.constantFrom<[string, string][]>(
    [['content-type', 'text/plain']],
    [['content-type', 'application/json; charset=latin1']],
    [['content-type', 'application/json ; charset="UTF-8"']],
    [['content-type', 'APPLICATION/JSON']],
    [['content-type', 'application/jose']],
    [['content-type', 'application/json-patch+json']],
    [['content-type', 'multipart/form-data; boundary=x']],
    [
      ['content-type', 'application/json'],
      ['content-type', 'text/plain'],
    ],
    [['content-type', `application/json; ${'x'.repeat(8_000)}=1`]],
    [['content-encoding', 'gzip']],
    [['expect', '100-continue']],
    [['x-forwarded-for', '10.0.0.1, 203.0.113.9']],
    [['x-request-id', '../../etc/passwd']],
    [['cookie', 'sid=opaque']],
    [['x-oversized', 'a'.repeat(20_000)]],
  );
  const authorization = fc
    .tuple(
      fc.constantFrom('Basic', 'Digest', 'Token', 'Bearer', 'bearer', 'Bearer\t', 'JWT', ''),
      token,
    )
    .map(([scheme, value]): [string, string][] => [['authorization', `${scheme} ${value}`.trim()]]);
  const signature = fc
    .tuple(
      fc.constantFrom('sha256', 'sha1', 'SHA512', 'md5', ''),
      fc.stringMatching(/^[0-9a-fA-F]{0,130}$/),
    )
    .map(([alg, hex]): [string, string][] => [['x-signature', `${alg}=${hex}`]]);
  const random = fc
    .tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), fc.string({ maxLength: 60 }))
    .map(([name, value]): [string, string][] => [[`x-${name}`, value.replace(/[\r\n\0]/g, ' ')]]);
  const added = fc
    .array(fc.oneof(fixed, authorization, signature, random), { minLength: 1, maxLength: 3 })
    .chain((lists) =>
      fc
        .option(fc.tuple(fc.constantFrom(...keys), fc.stringMatching(/^msg_[A-Za-z0-9]{1,20}$/)))
        .map((webhook): HeaderNoise => (headers, body) => [
          ...headers,
          ...lists.flat(),
          ...(webhook === null ? [] : standardWebhooks(webhook[0], body, webhook[1])),
        ]),
    );
  const untyped: HeaderNoise = (headers) => headers.filter(([name]) => name !== 'content-type');
  return fc.oneof({ arbitrary: added, weight: 4 }, fc.constant(untyped));
}

function deep(depth: number, open: string, close: string, inner: string): string {
  return `${open.repeat(depth)}${inner}${close.repeat(depth)}`;
}

/** Bodies of every shape a parser and a schema must survive. */
export function bodyArb(limit: number): fc.Arbitrary<Buffer> {
  const text = fc.oneof(
    fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
    fc.integer({ min: 1, max: 20_000 }).map((d) => deep(d, '[', ']', '')),
    fc.integer({ min: 1, max: 5_000 }).map((d) => deep(d, '{"involvedObject":', '}', '1')),
    fc.constantFrom(
      '',
      ' ',
      'null',
      '1e999',
      '-0',
      '123456789012345678901234567890',
      '{"involvedObject":{"kind":1e999,"name":[],"namespace":{}}}',
      '{"involvedObject":"HelmRelease"}',
      '{"revision":12345678901234567890,"decision":"approve"}',
      '{"reason":null,"selector":{"matchLabels":{"a":1}}}',
      '{"__proto__":{"polluted":true}}',
      '{"constructor":{"prototype":{"polluted":true}}}',
      '{"a":1}trailing',
      '\ufeff{"revision":"1"}',
      'NaN',
      "{'single':'quotes'}",
      'eyJhbGciOiJub25lIn0.e30.',
    ),
    fc.string({ maxLength: 200 }),
  );
  const bytes = fc.oneof(
    fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
    fc.constant(Buffer.from([0xff, 0xfe, 0x7b, 0x7d])),
    fc.constant(Buffer.alloc(limit + 1, 0x20)),
  );
  return fc.oneof({ arbitrary: text.map((t) => Buffer.from(t, 'utf8')), weight: 4 }, bytes);
}

/** `path` with every `every`th character percent-encoded (paths here are ASCII). */
function encodeSome(path: string, every: number): string {
  return Array.from(path)
    .map((c, i) =>
      c !== '/' && i % every === 0 ? `%${c.charCodeAt(0).toString(16).padStart(2, '0')}` : c,
    )
    .join('');
}

/** Variants of `path` that are no other door's target: encoded, longer, stranger. */
function pathNoise(): fc.Arbitrary<(path: string) => string> {
  const unicode = fc.constantFrom(
    '\u00e9',
    '\u202e',
    '\u{1f680}',
    '%00',
    '%c0%af',
    '%ff',
    '%',
    '%zz',
  );
  return fc.oneof(
    fc.integer({ min: 1, max: 4 }).map((every) => (p: string) => encodeSome(p, every)),
    fc.constantFrom(
      (p: string) => `${p}/`,
      (p: string) => `/${p}`,
      (p: string) => p.replace(/\//g, '//'),
      (p: string) => `${p}/../..`,
      (p: string) => `${p}/%2e%2e/%2e%2e`,
      (p: string) => p.replace(/\/([^/]*)$/, '/./$1'),
      (p: string) => p.replace(/\//g, '\\'),
      (p: string) => `${p}#fragment`,
      (p: string) => p.toUpperCase(),
      (p: string) => `${p}/${'a'.repeat(300)}`,
      (p: string) => `${p}?${'q='.repeat(4_000)}`,
      (p: string) => `${p}?since=%00%0a&since=2`,
    ),
    unicode.map((u) => (p: string) => `${p}${u}`),
    unicode.map((u) => (p: string) => p.replace(/\/([^/]*)$/, `/${u}$1`)),
  );
}

/** What noise does to a clean request, each part optional. */
interface Noise {
  method: string | null;
  path: ((path: string) => string) | null;
  headers: HeaderNoise | null;
  body: Buffer | null;
}

/** Noise of every kind; `keys` are real secrets the Standard Webhooks headers sign with. */
export function noiseArb(keys: readonly Buffer[], limit: number): fc.Arbitrary<Noise> {
  // Each part alone, mostly: one kind of noise at a time shows which one a door mishandles.
  return fc.record({
    method: fc.option(fc.constantFrom(...METHODS, ...RAW_ONLY_METHODS), { freq: 2 }),
    path: fc.option(pathNoise(), { freq: 2 }),
    headers: fc.option(headerNoise(keys), { freq: 2 }),
    body: fc.option(bodyArb(limit), { freq: 2 }),
  });
}

const CLEAN_FRAMINGS: ReadonlySet<string> = new Set(['exact', 'chunked', 'http10']);

/** How the request travels: fetch, or a raw socket framed well or broken. */
export function wireArb(): fc.Arbitrary<Wire> {
  const raw = (framings: readonly Framing[]) =>
    fc.constantFrom(...framings).map((framing): Wire => ({ kind: 'raw', framing }));
  return fc.oneof(
    { arbitrary: fc.constant<Wire>({ kind: 'fetch' }), weight: 3 },
    { arbitrary: raw(FRAMINGS.filter((f) => CLEAN_FRAMINGS.has(f))), weight: 2 },
    { arbitrary: raw(FRAMINGS.filter((f) => !CLEAN_FRAMINGS.has(f))), weight: 2 },
  );
}

/**
 * The door's requests with noise (or none) on any wire. Noise never makes a credential valid,
 * so an invalid one stays invalid; a valid one becomes unknown, since the noise may break it.
 */
export function fuzzCases(
  clean: fc.Arbitrary<CleanRequest>,
  keys: readonly Buffer[],
  limit = 64 * 1024,
): fc.Arbitrary<FuzzCase> {
  const noise = fc.option(noiseArb(keys, limit), { freq: 2 });
  return fc.tuple(clean, noise, wireArb()).map(([c, n, wire]) => {
    const body = n?.body ?? c.body;
    const request: WireRequest = {
      method: n?.method ?? c.method,
      path: n?.path?.(c.path) ?? c.path,
      headers: n?.headers?.(c.headers, body) ?? c.headers,
      body,
      wire,
    };
    const noisy =
      n !== null && (n.method !== null || n.path !== null || n.headers !== null || n.body !== null);
    // A chunked request has a body, which needs a content type (415 otherwise, as documented).
    const typed = request.headers.some(([name]) => name === 'content-type');
    const framed =
      wire.kind === 'fetch' ||
      (CLEAN_FRAMINGS.has(wire.framing) && (typed || wire.framing !== 'chunked'));
    const clean_ = !noisy && framed;
    const validity = noisy && c.validity === 'valid' ? 'unknown' : c.validity;
    const label = `${c.label}${noisy ? ' +noise' : ''} via ${wire.kind === 'raw' ? wire.framing : 'fetch'}`;
    return {
      request,
      validity,
      clean: clean_,
      label,
      ...(c.expected === undefined ? {} : { expected: c.expected }),
    };
  });
}
