/**
 * The embedded demo (`npm start`) run in this process from its sources, web view on, for the
 * browser tests: its own ports, its log kept, and its commands (`deploy`, `approve`, ...) run
 * as a second terminal would run them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../../../packages/demo/src/commands.js';
import { runDemo } from '../../../packages/demo/src/run.js';
import { stateDir, type DemoState } from '../../../packages/demo/src/state.js';

/** A demo running for a test. */
export interface TestDemo {
  port: number;
  state: DemoState;
  /** Runs a demo command against it (`--port` added); its exit status and output. */
  command(...argv: string[]): Promise<{ code: number; out: string; err: string }>;
  /** The demo's log so far (JSON lines). */
  log(): string;
  stop(): Promise<void>;
}

function sink(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
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

/** Starts the demo (view on a free port) and resolves once its state file is written. */
export async function startDemo(): Promise<TestDemo> {
  const port = await freePort();
  let stop = (): void => undefined;
  const until = new Promise<void>((resolve) => (stop = resolve));
  const log = sink();
  const dir = stateDir(port);
  const options = { port, viewPort: 0, stateDir: dir, banner: false, autoRollout: true };
  const running = runDemo({ ...options, log: 'json', until, logTo: log.stream }, {}, sink().stream);
  const file = join(dir, 'state.json');
  const deadline = Date.now() + 30_000;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`the demo did not start:\n${log.text()}`);
    await Promise.race([running, new Promise((resolve) => setTimeout(resolve, 100))]);
  }
  const state = JSON.parse(readFileSync(file, 'utf8')) as DemoState;
  return {
    port,
    state,
    command: async (...argv) => {
      const out = sink();
      const err = sink();
      const io = { out: out.stream, err: err.stream, env: {}, tty: false };
      const code = await main([...argv, '--port', String(port)], io);
      return { code, out: out.text(), err: err.text() };
    },
    log: log.text,
    stop: async () => {
      stop();
      await running;
    },
  };
}
