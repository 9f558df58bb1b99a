/**
 * The parent's handle on the load-generator child process: fork it once, run specs one at a
 * time, stop it at the end. Both servers under test are driven by the same child.
 */
import type { ChildProcess } from 'node:child_process';
import { forkReady, stopChild } from './child.js';
import type { FromClient, LoadResult, LoadSpec, ToClient } from './load-types.js';

/** A forked load client. */
export class LoadClient {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (r: LoadResult) => void; reject: (e: Error) => void }
  >();

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (message: FromClient) => {
      if (message.type === 'ready') return;
      const waiter = this.pending.get(message.id);
      if (waiter === undefined) return;
      this.pending.delete(message.id);
      if (message.type === 'result') waiter.resolve(message.result);
      else waiter.reject(new Error(`load client: ${message.message}`));
    });
    child.on('exit', (code) => {
      for (const waiter of this.pending.values())
        waiter.reject(new Error(`load client exited with code ${String(code)}`));
      this.pending.clear();
    });
  }

  /** Forks bench/dist/load-client.js and resolves once it is ready for work. */
  static async start(): Promise<LoadClient> {
    const { child } = await forkReady('load-client.js', () => undefined);
    return new LoadClient(child);
  }

  /** Process id of the child (for the report). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Runs one spec in the child; resolves to what it measured. */
  run(spec: LoadSpec): Promise<LoadResult> {
    const id = this.nextId++;
    return new Promise<LoadResult>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.send({ type: 'run', id, spec } satisfies ToClient);
    });
  }

  /** Closes the IPC channel; the child exits. */
  stop(): Promise<void> {
    return stopChild(this.child);
  }
}
