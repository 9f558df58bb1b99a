/**
 * One run of an HTTP check against a small server on loopback: status and JSON-field verdicts,
 * what is Unknown (timeouts, 5xx, unreachable, not JSON, too large), the allow-list and
 * redirects (never followed), the Secret's headers, and no secret in any message.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SecretKeyReader } from '../../../src/auth/legacy-keys.js';
import { runHttpCheck, MAX_BODY_BYTES } from '../../../src/checks/http-check.js';
import type { HttpCheck } from '../../../src/checks/resolve.js';
import { testGuard } from '../../support/address-guard.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const TOKEN = 'tok-3f9a1c77e2';
const HEADER_SECRET = 'hdr-55aa10ff9c';
let server: Server;
let base: string;
const routes = new Map<string, Handler>();
const seen: { path: string; headers: IncomingMessage['headers'] }[] = [];

function json(status: number, body: unknown): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    const handler = routes.get((req.url ?? '').split('?')[0] ?? '');
    if (handler === undefined) {
      res.writeHead(404).end();
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  routes.set('/ok', json(200, { status: 'green', build: { number: 7, ok: true }, list: [1, 'x'] }));
  routes.set('/yellow', json(200, { status: 'yellow' }));
  routes.set('/created', json(201, {}));
  routes.set('/gone', json(410, { message: 'gone' }));
  routes.set('/unavailable', json(503, {}));
  routes.set('/html', (_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>'),
  );
  // Never answers: only the check's own timeout ends the request.
  routes.set('/hang', () => undefined);
  routes.set('/redirect', (_req, res) => res.writeHead(302, { location: '/ok' }).end());
  routes.set('/huge', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(`{"pad":"${'x'.repeat(MAX_BODY_BYTES)}"}`);
  });
  // Echoes what it was sent, as a careless service might.
  routes.set('/echo', (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ auth: req.headers.authorization, key: req.headers['x-api-key'] }));
  });
  routes.set('/release/1.2.3%2Bbuild.7', json(200, { status: 'green' }));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const secrets: Record<string, Record<string, string>> = {
  'apps/status-token': { token: TOKEN, headers: `X-Api-Key: ${HEADER_SECRET}\nX-Team: web\n` },
  'apps/only-token': { token: TOKEN },
  'apps/bad-headers': { headers: `Host: evil.example\n` },
};
const readSecret: SecretKeyReader = (namespace, name, key) => {
  const value = secrets[`${namespace}/${name}`]?.[key];
  return Promise.resolve(value === undefined ? undefined : Buffer.from(value));
};

function check(path: string, fields: Partial<HttpCheck> = {}): HttpCheck {
  return { kind: 'http', url: `${base}${path}`, timeoutMs: 500, cacheMs: 60_000, ...fields };
}

function run(c: HttpCheck, allowed: string[] = [`${base}/`], revision = '1.2.3') {
  return runHttpCheck(c, 'apps', revision, {
    httpFetch: fetch,
    readSecret,
    guard: testGuard(allowed),
  });
}

describe('an HTTP check', () => {
  it.each([
    ['any 2xx by default', () => check('/created'), 'Passed', 'answered HTTP 201'],
    ['the status it names', () => check('/gone', { status: 410 }), 'Passed', 'answered HTTP 410'],
    ['a status mismatch', () => check('/gone'), 'Failed', 'answered HTTP 410, expected 2xx'],
    [
      'another 2xx than named',
      () => check('/created', { status: 200 }),
      'Failed',
      'answered HTTP 201, expected 200',
    ],
    [
      'a 503: the service cannot answer now',
      () => check('/unavailable'),
      'Unknown',
      'answered HTTP 503',
    ],
    [
      'a redirect, not followed',
      () => check('/redirect'),
      'Failed',
      'answered HTTP 302, expected 2xx (redirects are not followed)',
    ],
    [
      'a JSON field by dotted path',
      () => check('/ok', { json: { path: 'status', equals: 'green' } }),
      'Passed',
      'answered HTTP 200 with "status" = "green"',
    ],
    [
      'a number by JSON pointer',
      () => check('/ok', { json: { path: '/build/number', equals: '7' } }),
      'Passed',
      'answered HTTP 200 with "/build/number" = "7"',
    ],
    [
      'a boolean',
      () => check('/ok', { json: { path: 'build.ok', equals: 'true' } }),
      'Passed',
      undefined,
    ],
    [
      'an array item',
      () => check('/ok', { json: { path: 'list.1', equals: 'x' } }),
      'Passed',
      undefined,
    ],
    [
      'a field of another value',
      () => check('/yellow', { json: { path: 'status', equals: 'green' } }),
      'Failed',
      'answered with "status" = "yellow", expected "green"',
    ],
    [
      'an object where a value is expected',
      () => check('/ok', { json: { path: 'build', equals: 'x' } }),
      'Failed',
      'answered with "build" = an object, expected "x"',
    ],
    [
      'a missing field',
      () => check('/ok', { json: { path: 'state', equals: 'green' } }),
      'Failed',
      'answered with no field "state"',
    ],
    [
      'a body that is not JSON',
      () => check('/html', { json: { path: 'status', equals: 'green' } }),
      'Unknown',
      'answered HTTP 200 with a body that is not JSON',
    ],
    [
      'a body over the limit',
      () => check('/huge', { json: { path: 'pad', equals: 'x' } }),
      'Unknown',
      `answered with more than ${String(MAX_BODY_BYTES)} bytes`,
    ],
    [
      'a receiver that never answers',
      () => check('/hang', { timeoutMs: 200 }),
      'Unknown',
      'did not answer within 0.2 s',
    ],
  ])('judges %s', async (_name, c, state, message) => {
    const outcome = await run(c());
    expect(outcome.state).toBe(state);
    if (message !== undefined) expect(outcome.message).toBe(message);
  });

  it('is Unknown when the host cannot be reached, without quoting the URL', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) =>
      closed.close(() => {
        resolve();
      }),
    );
    const url = `http://127.0.0.1:${String(port)}/x?key=abc`;
    const outcome = await run({ ...check('/'), url }, [`http://127.0.0.1:${String(port)}/`]);
    expect(outcome).toEqual({ state: 'Unknown', message: 'could not be reached' });
  });

  it('puts the revision into the URL, encoded', async () => {
    const outcome = await run(
      check('/release/{{revision}}'),
      [`${base}/release/`],
      '1.2.3+build.7',
    );
    expect(outcome.state).toBe('Passed');
    expect(seen.at(-1)?.path).toBe('/release/1.2.3%2Bbuild.7');
  });
});

describe('the allow-list', () => {
  // BASE stands for the server's root, known only once it listens.
  it.each([
    ['an empty list', [], 'HTTP checks are not enabled in this gateway'],
    ['another host', ['http://status.example.com/'], 'is not admitted'],
    ['a longer path only', ['BASE/okay'], 'is not admitted'],
    ['a path prefix that is not a segment', ['BASE/o'], 'is not admitted'],
    ['another scheme', ['httpsBASE/'], 'is not admitted'],
  ])('refuses under %s, before any request', async (_name, allowed, text) => {
    const before = seen.length;
    const prefixes = allowed.map((p) =>
      p.replace('httpsBASE', base.replace('http:', 'https:')).replace('BASE', base),
    );
    const outcome = await run(check('/ok'), prefixes);
    expect(outcome.state).toBe('Unknown');
    expect(outcome.message).toContain(text);
    expect(seen.length).toBe(before);
  });

  it('admits an exact path and what lies below a prefix, after resolving ..', async () => {
    expect((await run(check('/ok'), [`${base}/ok`])).state).toBe('Passed');
    expect((await run(check('/ok'), [base])).state).toBe('Passed');
    // /release/../ok is /ok: outside /release/.
    const escaped = await run(check('/release/../ok'), [`${base}/release/`]);
    expect(escaped.message).toContain('/ok is not admitted');
  });

  it('refuses URLs with credentials and other schemes', async () => {
    const creds = await run({ ...check('/ok'), url: `http://u:p@127.0.0.1:1/ok` });
    expect(creds.message).toBe('its url must not hold credentials: put them in the Secret');
    const file = await run({ ...check('/ok'), url: 'file:///etc/passwd' });
    expect(file.message).toBe('its url must be http or https');
  });
});

describe("the Secret's headers", () => {
  it('sends the token as a Bearer token and the YAML headers', async () => {
    const outcome = await run(check('/ok', { secretRef: 'status-token' }));
    expect(outcome.state).toBe('Passed');
    const sent = seen.at(-1)?.headers ?? {};
    expect(sent.authorization).toBe(`Bearer ${TOKEN}`);
    expect(sent['x-api-key']).toBe(HEADER_SECRET);
    expect(sent['x-team']).toBe('web');
  });

  it('never quotes a secret, even when the service echoes it', async () => {
    const outcomes = await Promise.all([
      run(check('/echo', { secretRef: 'status-token', json: { path: 'auth', equals: 'x' } })),
      run(check('/echo', { secretRef: 'status-token', json: { path: 'key', equals: 'x' } })),
      run(check('/echo', { secretRef: 'only-token', json: { path: 'auth', equals: 'x' } })),
    ]);
    for (const outcome of outcomes) {
      expect(outcome.state).toBe('Failed');
      expect(outcome.message).toContain('[redacted]');
      expect(outcome.message).not.toContain(TOKEN);
      expect(outcome.message).not.toContain(HEADER_SECRET);
    }
  });

  it('is Unknown, naming the Secret only, when it is missing or unusable', async () => {
    const missing = await run(check('/ok', { secretRef: 'nope' }));
    expect(missing).toEqual({
      state: 'Unknown',
      message: 'Secret apps/nope has neither a "token" nor a "headers" key (or does not exist)',
    });
    const host = await run(check('/ok', { secretRef: 'bad-headers' }));
    expect(host.message).toBe(
      'Secret apps/bad-headers: its "headers" names a header that cannot be sent ("Host")',
    );
    const failing: SecretKeyReader = () => Promise.reject(new Error(`boom ${TOKEN}`));
    const unreadable = await runHttpCheck(
      check('/ok', { secretRef: 'status-token' }),
      'apps',
      '1',
      { httpFetch: fetch, readSecret: failing, guard: testGuard([`${base}/`]) },
    );
    expect(unreadable.message).toBe(
      'Secret apps/status-token could not be read from the management cluster',
    );
  });
});
