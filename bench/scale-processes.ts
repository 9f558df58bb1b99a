/**
 * The scale benchmark's two child processes as the parent drives them: forked with a first
 * message, asked questions by id, and the fleet's request accounting read through its admin
 * endpoint.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { forkInside, type PodCgroup } from './pod-memory.js';
import type { ScaleFleetInfo } from './scale-types.js';

/**
 * The parent's Node flags a child may inherit: not `-e`/`-p` and their script, which would
 * make every child run the parent's script (and fork again) instead of its own.
 */
export function inheritedFlags(execArgv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const flag = execArgv[i] ?? '';
    if (['-e', '--eval', '-p', '--print'].includes(flag)) i += 1;
    else if (!flag.startsWith('--eval=') && !flag.startsWith('--print=')) out.push(flag);
  }
  return out;
}

/** Children forked and not yet exited: killed if the benchmark exits first (a failed run). */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  // A run that failed exits without stopping its children; a busy gateway or fleet would go on
  // using the machine (and, in its pod, its cgroup) after the benchmark reported the failure.
  for (const child of running) child.kill('SIGKILL');
});

/** A child that answers `{ type, id }` requests with `{ type: 'reply', id, value }`. */
export class Child {
  private nextId = 1;

  constructor(readonly process: ChildProcess) {}

  /**
   * Forks bench/dist/<script> with `nodeFlags` (e.g. the Dockerfile's) and sends it `init`;
   * inside `pod` when given (pod-memory.ts), which is removed once the child exits.
   */
  static fork(
    script: string,
    init: object,
    nodeFlags: readonly string[] = [],
    pod?: PodCgroup,
  ): Child {
    const path = fileURLToPath(new URL(`./${script}`, import.meta.url));
    // --expose-gc: the gateway's samples report live memory after a full GC.
    const flags = [...nodeFlags, ...inheritedFlags(process.execArgv), '--expose-gc'];
    const child = fork(path, [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      ...(pod === undefined ? { execArgv: flags } : forkInside(pod, flags)),
    });
    running.add(child);
    child.once('exit', () => {
      running.delete(child);
      pod?.remove();
    });
    child.send(init);
    return new Child(child);
  }

  /** Resolves with the first message of `type` (rejects if the child exits first). */
  next<T>(type: string, timeoutMs = 900_000): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`no ${type} in ${String(timeoutMs)} ms`));
      }, timeoutMs);
      const onExit = (code: number | null) => {
        clearTimeout(timer);
        reject(new Error(`child exited (${String(code)}) before ${type}`));
      };
      const onMessage = (message: { type?: string }) => {
        if (message.type !== type) return;
        clearTimeout(timer);
        this.process.off('message', onMessage);
        this.process.off('exit', onExit);
        resolve(message as T);
      };
      this.process.on('message', onMessage);
      this.process.once('exit', onExit);
    });
  }

  /** Sends `{ ...request, id }` and resolves with the reply's value. */
  ask<T>(request: { type: string } & Record<string, unknown>): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve) => {
      const onMessage = (message: { type?: string; id?: number; value?: unknown }) => {
        if (message.type !== 'reply' || message.id !== id) return;
        this.process.off('message', onMessage);
        resolve(message.value as T);
      };
      this.process.on('message', onMessage);
      this.process.send({ ...request, id });
    });
  }

  /** Closes the IPC channel and waits for the child to exit. */
  async stop(): Promise<void> {
    if (this.process.exitCode !== null) return;
    const exited = new Promise((resolve) => this.process.once('exit', resolve));
    this.process.disconnect();
    const timer = setTimeout(() => this.process.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  }
}

const HR = 'helmreleases.helm.toolkit.fluxcd.io';

/** GETs and LISTs of HelmReleases per target cluster so far. */
export interface Reads {
  gets: Record<string, number>;
  lists: Record<string, number>;
}

async function count(
  adminUrl: string,
  cluster: string,
  query: Record<string, string>,
): Promise<number> {
  const url = `${adminUrl}/clusters/${encodeURIComponent(cluster)}/requests?${new URLSearchParams(query).toString()}`;
  const body = (await (await fetch(url)).json()) as { count?: number };
  return body.count ?? 0;
}

/** The fleet's HelmRelease reads so far, per target cluster. */
export async function reads(fleet: ScaleFleetInfo): Promise<Reads> {
  const out: Reads = { gets: {}, lists: {} };
  await Promise.all(
    fleet.clusters.map(async (c) => {
      out.gets[c] = await count(fleet.adminUrl, c, { verb: 'get', resource: HR });
      out.lists[c] = await count(fleet.adminUrl, c, { verb: 'list', resource: HR });
    }),
  );
  return out;
}

/** GETs of one object on its cluster so far. */
export function objectGets(
  fleet: ScaleFleetInfo,
  cluster: string,
  namespace: string,
  name: string,
) {
  return count(fleet.adminUrl, cluster, { verb: 'get', resource: HR, namespace, name });
}

/** `after - before`, summed over clusters, and the largest per-cluster difference. */
export function delta(after: Record<string, number>, before: Record<string, number>) {
  const diffs = Object.keys(after).map((c) => (after[c] ?? 0) - (before[c] ?? 0));
  return { total: diffs.reduce((a, b) => a + b, 0), maxPerCluster: Math.max(0, ...diffs) };
}

/** GETs and LISTs of HelmReleases, summed over clusters, between two counts. */
export function readsBetween(after: Reads, before: Reads): number {
  return delta(after.gets, before.gets).total + delta(after.lists, before.lists).total;
}
