/**
 * The guarded fetch against a small server on loopback: what an allow-list entry opens is sent
 * (method, headers, body, the answer's status, headers and body), a 3xx is answered as it is,
 * the caller's signal aborts; and what the policy refuses never reaches the server, including a name
 * that resolved to a public address when it was checked and to loopback when connected to.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { refusalIn } from '../../../src/egress/address-guard.js';
import type { Resolver } from '../../../src/egress/api-servers.js';
import { guardedFetch } from '../../../src/egress/guarded-fetch.js';
import { fakeResolver, testGuard } from '../../support/address-guard.js';
import { deferred } from '../../support/fake-scheduler.js';

let server: Server;
let port: number;
let base: string;
const seen: { method: string; path: string; headers: IncomingHttpHeaders; body: string }[] = [];
/** Resolves when a request to /hang (which is never answered) has reached the server. */
const hung = deferred<undefined>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      seen.push({
        method: req.method ?? '',
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      if (path === '/redirect') res.writeHead(302, { location: 'http://127.0.0.1:1/' }).end();
      else if (path === '/empty') res.writeHead(204).end();
      else if (path === '/hang') hung.resolve(undefined);
      else
        res.writeHead(201, { 'x-answer': 'yes', 'set-cookie': ['a=1', 'b=2'] }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${String(port)}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  seen.length = 0;
});

const fetchUnder = (prefixes: string[], resolve?: Resolver) =>
  guardedFetch(testGuard(prefixes, resolve === undefined ? {} : { resolve }));

async function refusalOf(promise: Promise<Response>) {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TypeError);
  return refusalIn(error);
}

describe('guardedFetch', () => {
  it('sends to an address an allow-list entry writes, and answers as fetch does', async () => {
    const send = fetchUnder([`${base}/hooks/`]);
    const response = await send(`${base}/hooks/in?x=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'webhook-id': 'evt_1' },
      body: '{"é":1}',
      redirect: 'manual',
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-answer')).toBe('yes');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.json()).toEqual({ ok: true });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', path: '/hooks/in?x=1', body: '{"é":1}' });
    expect(seen[0]?.headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': 'evt_1',
      'content-length': String(Buffer.byteLength('{"é":1}')),
    });
  });

  it('answers a redirect as it is and a 204 with no body', async () => {
    const send = fetchUnder([`${base}/`]);
    const redirect = await send(`${base}/redirect`, { method: 'GET' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('http://127.0.0.1:1/');
    const empty = await send(`${base}/empty`, { method: 'POST', body: 'x' });
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
    expect(seen.map((s) => s.path)).toEqual(['/redirect', '/empty']);
  });

  it("rejects with the signal's reason when the signal fires mid-request", async () => {
    const controller = new AbortController();
    const send = fetchUnder([`${base}/`]);
    const sent = send(`${base}/hang`, { method: 'GET', signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    await hung.promise;
    controller.abort(new DOMException('The operation timed out.', 'TimeoutError'));
    expect(await sent).toMatchObject({ name: 'TimeoutError' });
  });

  it('refuses loopback that no entry writes, before connecting', async () => {
    const refused = await refusalOf(fetchUnder([])(`${base}/hooks?key=s3cret`, { method: 'POST' }));
    expect(refused?.refusal).toMatchObject({ addressClass: 'loopback', verb: 'is' });
    expect(refused?.message).not.toContain('s3cret');
    expect(seen).toEqual([]);
  });

  it('refuses a name that resolves to loopback, even one an entry names', async () => {
    const resolve = fakeResolver({ 'receiver.test': ['127.0.0.1'] });
    const url = `http://receiver.test:${String(port)}/hooks`;
    const refused = await refusalOf(fetchUnder([url], resolve)(url, { method: 'POST' }));
    expect(refused?.refusal).toMatchObject({ addressClass: 'loopback', verb: 'resolves to' });
    expect(resolve.asked).toContain('receiver.test');
    expect(seen).toEqual([]);
  });

  it('checks the address it connects to: a name that changes its answer is still refused', async () => {
    // Public when a check asks, loopback when the connection asks: a rebinding DNS server.
    const answers = [['93.184.216.34'], ['127.0.0.1']];
    const resolve: Resolver = () => {
      const next = answers.shift() ?? ['127.0.0.1'];
      return Promise.resolve(next.map((address) => ({ address, family: 4 })));
    };
    const guard = testGuard([], { resolve });
    const url = new URL(`http://rebind.test:${String(port)}/hooks`);
    expect(await guard.check(url)).toBeUndefined();
    const refused = await refusalOf(guardedFetch(guard)(url.href, { method: 'POST', body: 'x' }));
    expect(refused?.refusal.addressClass).toBe('loopback');
    expect(seen).toEqual([]);
  });

  it('refuses the IPv4-mapped form of loopback', async () => {
    const url = `http://[::ffff:127.0.0.1]:${String(port)}/hooks`;
    const refused = await refusalOf(fetchUnder([])(url, { method: 'GET' }));
    expect(refused?.refusal.addressClass).toBe('loopback');
    expect(seen).toEqual([]);
  });
});
