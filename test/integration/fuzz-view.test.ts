/**
 * Fuzzes the web view (support/fuzz): its pages (/ and /pipelines/{ns}/{name}) and live streams
 * (/live and /live/pipelines/{ns}/{name}) with readers' JWTs valid, forged, expired, naming no
 * Pipeline (403) or others (404), with noise and broken framing, on raw sockets and fetch.
 * Every answer is a page or a stream, never a 5xx; nothing of the fleet is read before the
 * token is verified; the anonymous demo switch still checks a token that is sent; a live
 * stream broken by the bytes after it is closed, never answered inside. Afterwards the pages
 * answer and more streams than a reader may hold open one after another (each closed stream
 * is given back).
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzTimeoutMs } from '../support/fuzz/budget.js';
import {
  expectLogsFree,
  expectStillWorks,
  fuzzDoor,
  recorderTarget,
  type FuzzTarget,
} from '../support/fuzz/check.js';
import { AUDIENCE, ISSUER } from '../support/fuzz/doors-app.js';
import { honestHeader, signCompact } from '../support/fuzz/jws.js';
import { fuzzCases, type CleanRequest } from '../support/fuzz/noise.js';
import { viewRequests } from '../support/fuzz/requests-view.js';
import { startView, VIEW_PIPELINES, type ViewApp } from '../support/fuzz/view-app.js';
import { frame } from '../support/fuzz/wire.js';

/** CI's budget for each property (FUZZ_RUNS or FUZZ_SECONDS run them longer). */
const RUNS = 150;
const KNOWN = { evaluated: VIEW_PIPELINES };

let view: ViewApp;
let demo: ViewApp;
const targetOf = (app: ViewApp): FuzzTarget => recorderTarget(app, 'view');
beforeAll(async () => {
  [view, demo] = await Promise.all([startView(), startView(true)]);
});
afterAll(async () => {
  for (const app of [view, demo]) expectLogsFree(app.logs, app.secrets);
  await Promise.all([view.close(), demo.close()]);
});

/** Everything the server sends for `bytes` (written, then half-closed) until it closes. */
function untilClosed(port: number, bytes: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(bytes));
    let text = '';
    const timer = setTimeout(() => socket.destroy(), 3_000);
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
  });
}

/** The request without its token: the anonymous demo reader, who sees every Pipeline. */
function anonymous(request: CleanRequest): CleanRequest {
  const id = /pipelines\/(.+)$/.exec(request.path)?.[1];
  const status =
    id === undefined || (KNOWN.evaluated as readonly string[]).includes(id) ? 200 : 404;
  const headers = request.headers.filter(([name]) => name !== 'authorization');
  return {
    ...request,
    headers,
    validity: 'valid',
    label: 'anonymous',
    expected: { status, effect: false },
  };
}

describe('fuzzing the web view', () => {
  it(
    'shows pages and streams only to verified readers, each within their scope',
    async () => {
      await fuzzDoor(
        'view',
        targetOf(view),
        fuzzCases(viewRequests(view.context, KNOWN), [view.context.legacyKey]),
        RUNS,
      );
    },
    fuzzTimeoutMs(),
  );

  it(
    'still checks a token that is sent under the anonymous demo switch',
    async () => {
      const requests = fc
        .tuple(viewRequests(demo.context, KNOWN), fc.boolean())
        .map(([r, strip]) => (strip ? anonymous(r) : r));
      await fuzzDoor(
        'view (anonymous demo)',
        targetOf(demo),
        fuzzCases(requests, [demo.context.legacyKey]),
        RUNS,
      );
    },
    fuzzTimeoutMs(),
  );

  it('closes a live stream, never answers inside it, when garbled bytes follow (found by fuzzing)', async () => {
    // GET /live with a Content-Length whose body never comes: the stream starts, then the end
    // of the connection breaks the request; a 400 written then would land inside the stream.
    const request = { method: 'GET', path: '/live', headers: [], body: Buffer.alloc(0) };
    const { bytes } = frame(
      { ...request, wire: { kind: 'raw', framing: 'long-length' } },
      'long-length',
    );
    const text = await untilClosed(demo.port, bytes);
    expect(text.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 200']);
    expect(text).toMatch(/content-type: text\/event-stream/i);
  });

  it('still serves pages, and more streams one after another than a reader may hold at once', async () => {
    const { api } = view.context.keys;
    const t = Math.floor(Date.now() / 1000);
    const claims = {
      iss: ISSUER,
      aud: AUDIENCE,
      sub: 'reader',
      pipelines: ['*'],
      iat: t,
      exp: t + 300,
      jti: randomUUID(),
    };
    const headers = [
      ['authorization', `Bearer ${signCompact(honestHeader(api), claims, api)}`],
    ] as const;
    const read = { method: 'GET', headers, body: Buffer.alloc(0) };
    await expectStillWorks(targetOf(view), { ...read, path: '/' }, { status: 200, effect: false });
    await expectStillWorks(
      targetOf(view),
      { ...read, path: '/pipelines/apps/podinfo' },
      { status: 200, effect: false },
    );
    // 16 streams per reader at once (docs/ui.md): 12 rounds of two are 24 streams in a row.
    for (let i = 0; i < 12; i++)
      await expectStillWorks(
        targetOf(view),
        { ...read, path: '/live' },
        { status: 200, effect: false },
      );
  });
});
