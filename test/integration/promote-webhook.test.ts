import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StrategyContext, StrategyResult } from '../../src/promote/strategies/strategy.js';
import { webhookStrategy } from '../../src/promote/strategies/webhook.js';
import { samplePipeline, T0 } from '../support/pipeline-fixtures.js';
import { closedPort } from '../support/net.js';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const secret = Buffer.from('whsec-test-key-0123456789');
const received: Received[] = [];
/** The receiver answers with the status named by the path (/500 -> 500); /hang never answers. */
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (path === '/hang') return; // never answers: the client must time out
      const status = Number(path.slice(1)) || 204;
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status === 204 ? undefined : `receiver detail ${secret.toString('utf8')}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
});

beforeEach(() => {
  received.length = 0;
});

const ctx = (revision: string, attempt = 1): StrategyContext => ({
  pipeline: samplePipeline(),
  environment: 'staging',
  revision,
  attempt,
});

function strategy(
  path: string,
  options: { secret?: Buffer; timeoutMs?: number; now?: number } = {},
) {
  const endpoint = {
    url: `${base}${path}`,
    timeoutMs: options.timeoutMs ?? 5000,
    ...(options.secret === undefined ? {} : { secret: options.secret }),
  };
  return webhookStrategy({
    endpoint: 'ci',
    endpoints: { ci: endpoint },
    now: () => options.now ?? T0,
  });
}

function verify(r: Received): boolean {
  const id = String(r.headers['webhook-id']);
  const ts = String(r.headers['webhook-timestamp']);
  const expected = createHmac('sha256', secret).update(`${id}.${ts}.${r.body}`).digest();
  const signatures = String(r.headers['webhook-signature']).split(' ');
  return signatures.some((s) => {
    const [version, value] = s.split(',');
    const given = Buffer.from(value ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

function expectSecretFree(result: StrategyResult): void {
  const text = JSON.stringify(result);
  for (const needle of [
    secret.toString('utf8'),
    secret.toString('base64'),
    secret.toString('hex'),
    base,
    'receiver detail',
  ]) {
    expect(text).not.toContain(needle);
  }
}

describe('webhook strategy against a real receiver', () => {
  it('POSTs the signed Standard Webhooks request', async () => {
    const result = await strategy('/204', { secret }).run(ctx('1.1.0'));

    expect(result.ok).toBe(true);
    expect(received).toHaveLength(1);
    const r = received[0]!;
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['webhook-id']).toMatch(/^msg_[A-Za-z0-9_-]+$/);
    expect(r.headers['webhook-timestamp']).toBe(String(Math.floor(T0 / 1000)));
    expect(verify(r)).toBe(true);
    expect(JSON.parse(r.body)).toStrictEqual({
      pipeline: { namespace: 'flux-system', name: 'podinfo' },
      environment: 'staging',
      revision: '1.1.0',
      attempt: 1,
      timestamp: '2026-03-04T05:06:07Z',
    });
    expectSecretFree(result);
  });

  it('rejects a tampered body under the same signature (the check is meaningful)', async () => {
    await strategy('/204', { secret }).run(ctx('1.1.0'));
    const r = received[0]!;
    expect(verify({ ...r, body: r.body.replace('1.1.0', '9.9.9') })).toBe(false);
  });

  it('keeps the webhook-id across retries of a revision and changes it for another revision', async () => {
    await strategy('/204', { secret }).run(ctx('1.1.0', 1));
    await strategy('/204', { secret, now: T0 + 60_000 }).run(ctx('1.1.0', 2));
    await strategy('/204', { secret }).run(ctx('1.2.0', 1));

    const ids = received.map((r) => r.headers['webhook-id']);
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).not.toBe(ids[0]);
    expect(received.every(verify)).toBe(true);
  });

  it('sends no signature when the endpoint has no secret', async () => {
    const result = await strategy('/204').run(ctx('1.1.0'));
    expect(result.ok).toBe(true);
    expect(received[0]!.headers).not.toHaveProperty('webhook-signature');
    expect(received[0]!.headers['webhook-id']).toBeDefined();
  });

  it('treats 500 as a retryable failure', async () => {
    const result = await strategy('/500', { secret }).run(ctx('1.1.0'));
    expect(result).toStrictEqual({
      ok: false,
      reason: 'WebhookRejected',
      message: 'webhook endpoint ci answered HTTP 500',
      retryable: true,
    });
    expectSecretFree(result);
  });

  it('treats 400 as a non-retryable failure', async () => {
    const result = await strategy('/400', { secret }).run(ctx('1.1.0'));
    expect(result).toMatchObject({ ok: false, retryable: false });
    expectSecretFree(result);
  });

  it('times out a receiver that never answers, as a retryable failure', async () => {
    const result = await strategy('/hang', { secret, timeoutMs: 200 }).run(ctx('1.1.0'));
    expect(result).toStrictEqual({
      ok: false,
      reason: 'WebhookTimeout',
      message: 'webhook endpoint ci did not answer in time',
      retryable: true,
    });
    expect(received).toHaveLength(1);
  });

  it('treats a refused connection as retryable', async () => {
    const port = await closedPort();
    const result = await webhookStrategy({
      endpoint: 'ci',
      endpoints: { ci: { url: `http://127.0.0.1:${port}/`, secret, timeoutMs: 2000 } },
    }).run(ctx('1.1.0'));
    expect(result).toMatchObject({ ok: false, reason: 'WebhookUnreachable', retryable: true });
    expect(result.message).not.toContain(String(port));
  });
});
