/**
 * Where an HTTP check may call, past the allow-list: a URL the operator's list admits by a name
 * is still refused when the name resolves to loopback, a metadata, private or API server address
 * (the check is Unknown and says so, naming the host and the class, never the path or query),
 * and nothing reaches the server; an entry that writes the address itself opens it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runHttpCheck } from '../../../src/checks/http-check.js';
import type { HttpCheck } from '../../../src/checks/resolve.js';
import { guardedFetch } from '../../../src/egress/guarded-fetch.js';
import { fakeResolver, testGuard } from '../../support/address-guard.js';

let server: Server;
let port: number;
const paths: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    paths.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"green"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  paths.length = 0;
});

const resolve = fakeResolver({
  'status.test': ['127.0.0.1'],
  'meta.test': ['169.254.169.254'],
  'inside.test': ['10.0.0.7'],
  'kube.test': ['192.0.2.50'],
});

async function run(url: string, allowed: string[]) {
  const guard = testGuard(allowed, {
    resolve,
    servers: { dev: [`https://192.0.2.50:${String(port)}`] },
  });
  const check: HttpCheck = { kind: 'http', url, timeoutMs: 2_000, cacheMs: 60_000 };
  return runHttpCheck(check, 'apps', '1.2.3', {
    httpFetch: guardedFetch(guard),
    readSecret: () => Promise.resolve(undefined),
    guard,
  });
}

const hint = 'which only an entry of checks.http.allowedUrlPrefixes naming that IP address opens';

describe('an HTTP check under the address policy', () => {
  it.each([
    ['status.test', 'http', 'resolves to a loopback address'],
    ['meta.test', 'http', 'resolves to a cloud metadata address'],
    ['inside.test', 'http', 'resolves to a private address'],
    ['kube.test', 'https', 'resolves to the API server of a cluster the gateway reaches'],
  ])(
    'is Unknown for %s, which the list admits by name, and calls nothing',
    async (host, scheme, what) => {
      const origin = `${scheme}://${host}:${String(port)}`;
      const outcome = await run(`${origin}/health/{{revision}}?key=s3cret`, [`${origin}/health/`]);
      expect(outcome).toEqual({
        state: 'Unknown',
        message: `its url ${origin}/… ${what}, ${hint}`,
      });
      expect(paths).toEqual([]);
    },
  );

  it('is Unknown when the name resolves elsewhere by the time it is connected to', async () => {
    // Public when the check asks, loopback when the connection asks: a rebinding DNS server.
    const answers = ['93.184.216.34', '127.0.0.1'];
    const rebinding = () =>
      Promise.resolve([{ address: answers.shift() ?? '127.0.0.1', family: 4 }]);
    const origin = `http://rebind.test:${String(port)}`;
    const guard = testGuard([`${origin}/`], { resolve: rebinding });
    const check: HttpCheck = { kind: 'http', url: `${origin}/x`, timeoutMs: 2_000, cacheMs: 1 };
    const outcome = await runHttpCheck(check, 'apps', '1', {
      httpFetch: guardedFetch(guard),
      readSecret: () => Promise.resolve(undefined),
      guard,
    });
    expect(outcome).toEqual({
      state: 'Unknown',
      message: `its url ${origin}/… resolves to a loopback address, ${hint}`,
    });
    expect(paths).toEqual([]);
  });

  it('calls an address an entry writes itself', async () => {
    const base = `http://127.0.0.1:${String(port)}`;
    const outcome = await run(`${base}/health/{{revision}}`, [`${base}/health/`]);
    expect(outcome).toEqual({ state: 'Passed', message: 'answered HTTP 200' });
    expect(paths).toEqual(['/health/1.2.3']);
  });
});
