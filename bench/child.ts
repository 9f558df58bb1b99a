/**
 * Forking the benchmark's helper processes (load client, kube-sim fleet, gateway, bare and
 * reference servers): each is a script next to this one that sends `{ type: 'ready', ... }` once
 * it can work, and exits when its IPC channel closes.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** How long a helper may take to report ready. */
const READY_TIMEOUT_MS = 60_000;
/** How long a helper may take to exit once asked. */
const EXIT_TIMEOUT_MS = 10_000;

/** A helper's ready message; `read` turns it into what the caller needs. */
export type ReadyMessage = { type: 'ready' } & Record<string, unknown>;

/** How to start a helper beyond the defaults. */
export interface ForkOptions {
  /** Node flags placed before the benchmark's own (`process.execArgv`), e.g. production flags. */
  nodeFlags?: readonly string[];
  /** A first message sent right after the fork (configuration that must not go on argv). */
  init?: unknown;
}

/** Forks `bench/dist/<script>` and resolves with it and what `read` made of its ready message. */
export async function forkReady<R>(
  script: string,
  read: (message: ReadyMessage) => R,
  options: ForkOptions = {},
): Promise<{ child: ChildProcess; ready: R }> {
  const path = fileURLToPath(new URL(`./${script}`, import.meta.url));
  const child = fork(path, [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // Flags given to the benchmark come last, so they can still override (e.g. --cpu-prof).
    execArgv: [...(options.nodeFlags ?? []), ...process.execArgv],
  });
  if (options.init !== undefined) child.send(options.init as object);
  const ready = await new Promise<R>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not become ready in ${READY_TIMEOUT_MS} ms`));
    }, READY_TIMEOUT_MS);
    const onExit = (code: number | null): void => {
      clearTimeout(timer);
      reject(new Error(`${script} exited before ready (code ${String(code)})`));
    };
    const onMessage = (message: { type?: unknown }): void => {
      if (message.type !== 'ready') return;
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(read(message as ReadyMessage));
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
  return { child, ready };
}

/** Closes the child's IPC channel and waits for it to exit; kills it if it takes too long. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      resolve();
    });
  });
  if (child.connected) child.disconnect();
  const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
