/**
 * The reference route, run as its own process (see servers.ts): "a minimal fastify
 * route that checks the HMAC over the raw body, validates with ajv and enqueues a key". One
 * POST route on the events path, the body kept as raw bytes (a buffer content-type parser),
 * `X-Signature: sha256=<hex>` checked with one createHmac and timingSafeEqual over those bytes,
 * JSON.parse, the schemas/flux-event.schema.json check (compiled once, ajv-formats), a key
 * added to a bounded in-memory set, and 202 with the bare route's body. No logger, no hooks,
 * no plugins: what the gateway does on this path, and nothing more.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { fastify } from 'fastify';
import { repoPath } from './paths.js';
import type { ReferenceStart } from './gateway-types.js';

/** Most keys the in-memory queue holds; further distinct keys are answered 503. */
const MAX_KEYS = 10_000;
const SIGNATURE_PREFIX = 'sha256=';
const SHA256_BYTES = 32;

interface Involved {
  kind: string;
  namespace: string;
  name: string;
}

function compileValidator() {
  // ajv-formats is CommonJS: under NodeNext its default import is the module object.
  const addFormats = addFormatsModule.default;
  const ajv = new Ajv({ allErrors: false, strict: true });
  addFormats(ajv, ['date-time']);
  const schema = JSON.parse(
    readFileSync(repoPath('schemas', 'flux-event.schema.json'), 'utf8'),
  ) as object;
  return ajv.compile<{ involvedObject: Involved }>(schema);
}

async function main({ key }: ReferenceStart): Promise<void> {
  const hmacKey = Buffer.from(key, 'utf8');
  const validate = compileValidator();
  const queue = new Set<string>();

  const app = fastify({ logger: false });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    done(null, body);
  });
  app.post<{ Params: { cluster: string } }>('/v1/events/:cluster', async (request, reply) => {
    const raw = request.body as Buffer;
    const header = request.headers['x-signature'];
    const claimed =
      typeof header === 'string' && header.startsWith(SIGNATURE_PREFIX)
        ? Buffer.from(header.slice(SIGNATURE_PREFIX.length), 'hex')
        : undefined;
    const mac = createHmac('sha256', hmacKey).update(raw).digest();
    if (claimed?.length !== SHA256_BYTES || !timingSafeEqual(mac, claimed))
      return reply.code(401).send({ error: 'unauthenticated' });
    let event: unknown;
    try {
      event = JSON.parse(raw.toString('utf8'));
    } catch {
      return reply.code(400).send({ error: 'invalid JSON' });
    }
    if (!validate(event)) return reply.code(400).send({ error: 'invalid body' });
    const { kind, namespace, name } = event.involvedObject;
    const hintKey = `${request.params.cluster}/${kind}/${namespace}/${name}`;
    if (!queue.has(hintKey)) {
      if (queue.size >= MAX_KEYS) return reply.code(503).send({ error: 'queue full' });
      queue.add(hintKey);
    }
    return reply.code(202).send({ accepted: true, hint: 'queued' });
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  process.on('disconnect', () => {
    void app.close().finally(() => process.exit(0));
  });
  process.send?.({ type: 'ready', port: (app.server.address() as AddressInfo).port });
}

if (process.send !== undefined) {
  process.once('message', (message: ReferenceStart) => {
    main(message).catch((err: unknown) => {
      process.stderr.write(
        `bench reference server: ${err instanceof Error ? err.message : String(err)}\n`,
      );
      process.exit(1);
    });
  });
}
