/**
 * `/openapi/v2` and `/openapi/v3[/...]` over HTTP with kube-openapi's content negotiation: v2
 * as JSON or protobuf by Accept, 406 with an empty body when neither is acceptable (client-go
 * then tries its legacy path); v3 as JSON, with an ETag, and a `hash` that is not the
 * document's answered by a 301 to the current one, as handler3 does. A matching hash makes the
 * answer `Cache-Control: public, immutable`, so kubectl's cache keeps it until a CRD changes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { encodeOpenApiV2 } from './openapi-proto.js';
import { openApiV2Document } from './openapi-v2.js';
import { openApiV3Document, openApiV3Index } from './openapi-v3.js';
import type { Registry } from './resources.js';
import { pathNotFound } from './status-errors.js';

const V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const V2_PROTOBUF_ACCEPTED = [
  'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
  V2_PROTOBUF,
];

/** Media types of an Accept header in the client's order of preference (q=0 dropped). */
function acceptOrder(header: string | undefined): string[] {
  const clauses = (header ?? '').split(',').flatMap((raw, i) => {
    const [type = '', ...params] = raw.split(';').map((p) => p.trim());
    const q = params.find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    return type === '' || !(weight > 0) ? [] : [{ type: type.toLowerCase(), weight, i }];
  });
  if (clauses.length === 0) return ['*/*'];
  return clauses.sort((a, b) => b.weight - a.weight || a.i - b.i).map((c) => c.type);
}

/** The first of `offered` the client accepts, in the client's order, or undefined. */
function negotiate(header: string | undefined, offered: string[]): string | undefined {
  for (const wanted of acceptOrder(header)) {
    const [type = '', sub = ''] = wanted.split('/');
    const hit = offered.find((o) => {
      const [ot, os] = o.split('/');
      return (type === '*' || type === ot) && (sub === '*' || sub === os);
    });
    if (hit !== undefined) return hit;
  }
  return undefined;
}

function send(res: ServerResponse, type: string, body: Buffer | string, headers = {}): void {
  res.writeHead(200, {
    'Content-Type': type,
    'Content-Length': String(Buffer.byteLength(body)),
    Vary: 'Accept',
    ...headers,
  });
  res.end(body);
}

function notAcceptable(res: ServerResponse): void {
  res.writeHead(406, { Vary: 'Accept', 'Content-Length': '0' });
  res.end();
}

function serveV2(registry: Registry, req: IncomingMessage, res: ServerResponse): void {
  const chosen = negotiate(req.headers.accept, ['application/json', ...V2_PROTOBUF_ACCEPTED]);
  if (chosen === undefined) {
    notAcceptable(res);
    return;
  }
  const doc = openApiV2Document(registry);
  if (chosen === 'application/json') send(res, 'application/json', JSON.stringify(doc));
  else send(res, V2_PROTOBUF, encodeOpenApiV2(doc));
}

function serveV3Document(
  registry: Registry,
  req: IncomingMessage,
  res: ServerResponse,
  gv: string,
): void {
  const doc = openApiV3Document(registry, gv);
  if (doc === undefined) throw pathNotFound();
  if (negotiate(req.headers.accept, ['application/json']) === undefined) {
    notAcceptable(res);
    return;
  }
  const hash = new URL(req.url ?? '/', 'http://sim.invalid').searchParams.get('hash');
  if (hash !== null && hash !== '' && hash !== doc.hash) {
    res.writeHead(301, { Location: `/openapi/v3/${gv}?hash=${doc.hash}`, 'Content-Length': '0' });
    res.end();
    return;
  }
  const etag = `"${doc.hash}"`;
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, { ETag: etag, Vary: 'Accept' });
    res.end();
    return;
  }
  const cache =
    hash === doc.hash
      ? {
          'Cache-Control': 'public, immutable',
          Expires: new Date(Date.now() + 365 * 86_400_000).toUTCString(),
        }
      : {};
  send(res, 'application/json', doc.body, { ETag: etag, ...cache });
}

/** Serves `/openapi/...` (`parts` are the path's segments); 404 for anything else there. */
export function serveOpenApi(
  registry: Registry,
  parts: string[],
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const [, version = '', ...rest] = parts;
  if (version === 'v2' && rest.length === 0) serveV2(registry, req, res);
  else if (version === 'v3' && rest.length === 0)
    send(res, 'application/json', JSON.stringify(openApiV3Index(registry)));
  else if (version === 'v3') serveV3Document(registry, req, res, rest.join('/'));
  else throw pathNotFound();
}
