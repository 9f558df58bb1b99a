/**
 * The demo as the story tests run it: started in this process on a free port (its web view on
 * another), its log captured as JSON, its commands run as a reader would type them, and
 * `eventually` for what the demo does by itself.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../src/commands.js';
import { runDemo } from '../src/run.js';
import { stateDir } from '../src/state.js';
import { capture, freePort, io } from './io.js';

/** A running demo: its port, its commands, its log, and its stop. */
export interface StoryDemo {
  port: number;
  /** Runs `npm run demo -- <argv> --port <port>`, in process. */
  command(...argv: string[]): Promise<{ code: number; out: string; err: string }>;
  log: ReturnType<typeof capture>;
  /** Stops the demo; resolves to its exit code. */
  stop(): Promise<number>;
}

/**
 * `check` again until it passes or `timeoutMs` has passed. A status check is a call with the
 * viewer's token, whose bucket the gateway limits to 300 a minute (rateLimit's default): one
 * every 250 ms stays under it through the longest chapter.
 */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** Starts the demo with the Flux stand-in rolling promotions out, once its state is written. */
export async function startStoryDemo(): Promise<StoryDemo> {
  const port = await freePort();
  const log = capture();
  let release = (): void => undefined;
  const until = new Promise<void>((resolve) => (release = resolve));
  const running = runDemo(
    {
      port,
      viewPort: 0,
      stateDir: stateDir(port),
      banner: false,
      autoRollout: true,
      log: 'json',
      until,
      logTo: log.stream,
    },
    {},
    capture().stream,
  );
  // Two story files may start their demos at once on a busy machine: a minute to start.
  await eventually(async () => {
    if (!existsSync(join(stateDir(port), 'state.json'))) throw new Error('not started');
    return Promise.resolve();
  }, 60_000);
  return {
    port,
    log,
    command: async (...argv) => {
      const t = io();
      const code = await main([...argv, '--port', String(port)], t.io);
      return { code, out: t.out(), err: t.err() };
    },
    stop: () => {
      release();
      return running;
    },
  };
}
