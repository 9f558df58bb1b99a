/**
 * The bare fastify server, run as its own process (see servers.ts): one POST route on the
 * events path that parses the JSON body with fastify's default parser, logs nothing and
 * answers 202. Its own process keeps its garbage out of the gateway's memory figure.
 */
import type { AddressInfo } from 'node:net';
import { fastify } from 'fastify';

async function main(): Promise<void> {
  const app = fastify({ logger: false });
  app.post('/v1/events/:cluster', async (_request, reply) =>
    reply.code(202).send({ accepted: true, hint: 'queued' }),
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  process.on('disconnect', () => {
    void app.close().finally(() => process.exit(0));
  });
  process.send?.({ type: 'ready', port: (app.server.address() as AddressInfo).port });
}

if (process.send !== undefined) {
  main().catch((err: unknown) => {
    process.stderr.write(
      `bench bare server: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    process.exit(1);
  });
}
