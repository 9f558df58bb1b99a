/**
 * A TCP proxy between the browser and the view that can drop every open connection and refuse
 * new ones for a while, as a network blip or a restarting load balancer would: the page's live
 * stream breaks server-side, and the page has to reconnect and catch up by itself.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

/** A running proxy: its port, `drop(holdMs)` and `close()`. */
export interface DropProxy {
  port: number;
  /** Destroys every open connection, and every new one for `holdMs`. */
  drop(holdMs: number): void;
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 forwarding to `targetPort` on 127.0.0.1. */
export async function dropProxy(targetPort: number): Promise<DropProxy> {
  const sockets = new Set<Socket>();
  let refuseUntil = 0;
  const server: Server = createServer((client) => {
    if (Date.now() < refuseUntil) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no proxy port');
  return {
    port: address.port,
    drop: (holdMs) => {
      refuseUntil = Date.now() + holdMs;
      for (const s of sockets) s.destroy();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}
