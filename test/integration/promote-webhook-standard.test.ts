/**
 * The webhook strategy's deliveries verified by the official Standard Webhooks library
 * (`standardwebhooks`, `new Webhook(secret).verify(body, headers)`) on a real loopback
 * receiver, with the secret configured as Standard Webhooks tooling hands it out
 * (`whsec_<base64>`) or raw. The configuration is loaded as the gateway loads it.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/load.js';
import type { StrategyContext } from '../../src/promote/strategies/strategy.js';
import { webhookStrategy } from '../../src/promote/strategies/webhook.js';
import { samplePipeline } from '../support/pipeline-fixtures.js';

/** The secret the receiver verifies with, by path: /<name> answers 204 if it verifies, else 401. */
const receiverSecrets = new Map<string, string>();
const verdicts: string[] = [];
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const secret = receiverSecrets.get(req.url ?? '') ?? 'whsec_AAAA';
      try {
        new Webhook(secret).verify(
          Buffer.concat(chunks).toString('utf8'),
          req.headers as Record<string, string>,
        );
        verdicts.push('verified');
        res.writeHead(204).end();
      } catch (error) {
        verdicts.push((error as Error).message);
        res.writeHead(401).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
});

const ctx: StrategyContext = {
  pipeline: samplePipeline(),
  environment: 'staging',
  revision: '1.2.3',
  attempt: 1,
};

/** Delivers one promotion to /`path` with the gateway configured with `secret` (as a value). */
async function deliver(path: string, secret: string) {
  const config = defaultConfig({
    promotion: { webhooks: { deploy: { url: `${base}/${path}`, secret: { value: secret } } } },
  });
  // The real clock: the library refuses timestamps more than five minutes away from its own.
  return webhookStrategy({ endpoint: 'deploy', endpoints: config.promotion.webhooks }).run(ctx);
}

describe('a receiver using the standardwebhooks library', () => {
  it('accepts the delivery when the gateway holds the same whsec_ secret', async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    receiverSecrets.set('/whsec', secret);
    const result = await deliver('whsec', secret);
    expect([result.ok, verdicts.at(-1)]).toEqual([true, 'verified']);
  });

  it('accepts the delivery of a raw secret given to the library as its base64 form', async () => {
    const raw = 'a-raw-secret-as-configured-today';
    receiverSecrets.set('/raw', Buffer.from(raw, 'utf8').toString('base64'));
    const result = await deliver('raw', raw);
    expect([result.ok, verdicts.at(-1)]).toEqual([true, 'verified']);
    // ... and as `whsec_` + that base64, which is the same key.
    receiverSecrets.set('/raw-as-whsec', `whsec_${Buffer.from(raw).toString('base64')}`);
    expect((await deliver('raw-as-whsec', raw)).ok).toBe(true);
  });

  it('refuses a delivery signed with another secret: the promotion fails, not retried', async () => {
    receiverSecrets.set('/wrong', `whsec_${randomBytes(32).toString('base64')}`);
    const result = await deliver('wrong', `whsec_${randomBytes(32).toString('base64')}`);
    expect(verdicts.at(-1)).toBe('No matching signature found');
    expect(result).toMatchObject({ ok: false, reason: 'WebhookRejected', retryable: false });
  });

  it('refuses what the gateway sent before: the whsec_ text itself used as the HMAC key', async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    receiverSecrets.set('/literal', secret);
    const endpoint = { url: `${base}/literal`, timeoutMs: 5000, secret: Buffer.from(secret) };
    const before = webhookStrategy({ endpoint: 'deploy', endpoints: { deploy: endpoint } });
    expect((await before.run(ctx)).ok).toBe(false);
    expect(verdicts.at(-1)).toBe('No matching signature found');
    expect((await deliver('literal', secret)).ok).toBe(true);
  });
});
