/** Captured streams and free ports for the demo's tests. */
import { createServer } from 'node:net';
import { PassThrough } from 'node:stream';
import type { DemoIo } from '../src/commands.js';

/** A writable stream that keeps what it is given. */
export function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** IO for `main`: captured out and err, an empty environment, and an optional end. */
export function io(until?: Promise<unknown>) {
  const out = capture();
  const err = capture();
  const value: DemoIo = {
    out: out.stream,
    err: err.stream,
    env: {},
    tty: false,
    ...(until === undefined ? {} : { until }),
  };
  return { io: value, out: out.text, err: err.text };
}

/** A loopback port free right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => {
        resolve(port);
      });
    });
  });
}
