/**
 * A TCP proxy in front of a simulated cluster, for a replica whose connections the test cuts
 * all at once, as if its process had been killed: every open connection is destroyed and new
 * ones are refused, while the replica itself keeps running (it can no longer renew its Lease or
 * write anything).
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

/** A running proxy: the port to dial, and cut() to kill every connection for good. */
export interface TcpProxy {
  port: number;
  cut(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 forwarding to `targetPort`. */
export async function tcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
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
    cut: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    },
  };
}

/** `kubeconfig` with its server's port replaced by `port` (same host, so TLS still verifies). */
export function throughPort(kubeconfig: string, port: number): string {
  return kubeconfig.replace(/(server: https?:\/\/127\.0\.0\.1:)\d+/g, `$1${String(port)}`);
}
