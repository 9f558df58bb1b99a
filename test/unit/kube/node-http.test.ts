/**
 * NodeHttpLibrary against a real HTTP server on a socket: what client-node gets from it (status,
 * headers, body as text or bytes) and how it fails (refused, aborted), as node-fetch gave them.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpMethod, RequestContext } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyKubeError } from '../../../src/kube/errors.js';
import { NodeHttpLibrary } from '../../../src/kube/node-http.js';

let server: Server;
let base: string;
const seen: { method?: string; headers?: Record<string, unknown>; body?: string } = {};
/** Ends the answer to /split: the test sends its second half once the first has arrived. */
let endSplit: (() => void) | undefined;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (s: string) => (body += s));
    req.on('end', () => {
      Object.assign(seen, { method: req.method, headers: req.headers, body });
      if (req.url === '/split') {
        // "é" (two bytes in UTF-8) cut between two writes: decoding must not split it.
        const bytes = Buffer.from('{"name":"café"}');
        res.writeHead(200, { 'content-type': 'application/json', 'x-many': ['a', 'b'] });
        res.write(bytes.subarray(0, 13));
        endSplit = () => res.end(bytes.subarray(13));
        return;
      }
      if (req.url === '/stall') {
        res.writeHead(200);
        res.write('{"partial":');
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"kind":"Status","code":404}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const library = new NodeHttpLibrary();

describe('NodeHttpLibrary', () => {
  it('sends method, headers and a text body; answers status, joined headers and text', async () => {
    const request = new RequestContext(`${base}/split`, HttpMethod.PUT);
    request.setHeaderParam('Content-Type', 'application/json');
    request.setBody('{"spec":"ü"}');
    const answer = await library.send(request).toPromise();
    // The head and the first half are in: the rest comes as a later chunk.
    endSplit?.();
    expect(seen).toMatchObject({ method: 'PUT', body: '{"spec":"ü"}' });
    expect(seen.headers).toMatchObject({
      'content-type': 'application/json',
      'content-length': '13',
    });
    expect(answer.httpStatusCode).toBe(200);
    expect(answer.headers).toMatchObject({ 'content-type': 'application/json', 'x-many': 'a, b' });
    expect(await answer.body.text()).toBe('{"name":"café"}');
  });

  it('gives an error answer its status and body, and a body as bytes', async () => {
    const answer = await library
      .send(new RequestContext(`${base}/nothing`, HttpMethod.GET))
      .toPromise();
    expect(answer.httpStatusCode).toBe(404);
    expect((await answer.body.binary()).toString()).toBe('{"kind":"Status","code":404}');
  });

  it('fails a refused connection with its code, classified Unavailable', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as AddressInfo;
    closed.close();
    await once(closed, 'close');
    const failure = await library
      .send(new RequestContext(`http://127.0.0.1:${String(port)}/x`, HttpMethod.GET))
      .toPromise()
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(failure).toMatchObject({ code: 'ECONNREFUSED' });
    expect(classifyKubeError(failure).reason).toBe('Unavailable');
  });

  it('aborts a body that stalls when the signal fires, as an AbortError', async () => {
    const controller = new AbortController();
    const request = new RequestContext(`${base}/stall`, HttpMethod.GET);
    request.setSignal(controller.signal);
    const answer = await library.send(request).toPromise();
    const reading = answer.body.text().then(
      () => undefined,
      (err: unknown) => err,
    );
    // The body has started and stalls: the signal fires while it is being read.
    controller.abort(new DOMException('timed out', 'TimeoutError'));
    const failure = await reading;
    expect(failure).toMatchObject({ name: 'AbortError' });
    expect(classifyKubeError(failure).reason).toBe('Timeout');
  });

  it('refuses a body that is not text, sending nothing', async () => {
    const request = new RequestContext(`${base}/nothing`, HttpMethod.POST);
    request.setBody(new URLSearchParams({ a: '1' }));
    seen.method = undefined;
    await expect(library.send(request).toPromise()).rejects.toThrow(/only text request bodies/);
    expect(seen.method).toBeUndefined();
  });
});
