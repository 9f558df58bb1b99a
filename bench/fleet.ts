/**
 * The parent's handle on the kube-sim fleet child process: start it, read its request
 * accounting through the fleet's admin endpoint, stop it.
 */
import type { ChildProcess } from 'node:child_process';
import type { RequestFilter } from 'kube-sim';
import { forkReady, stopChild } from './child.js';
import type { FleetInfo, FleetMessage, ToFleet } from './fleet-types.js';

/** A running fleet in a child process. */
export class FleetHandle {
  private nextId = 1;

  private constructor(
    private readonly child: ChildProcess,
    /** What the fleet reported when it was ready. */
    readonly info: FleetInfo,
  ) {}

  /** Process id of the child (to pin it to a CPU). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Forks bench/dist/fleet-process.js and resolves once the fleet is filled and listening. */
  static async start(): Promise<FleetHandle> {
    const { child, ready } = await forkReady(
      'fleet-process.js',
      (message) => (message as FleetMessage & { type: 'ready' }).info,
    );
    return new FleetHandle(child, ready);
  }

  /** Requests counted by `cluster` that match `filter` (all when empty). */
  async count(cluster: string, filter: RequestFilter = {}): Promise<number> {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(filter)) query.set(name, value);
    const url = `${this.info.adminUrl}/clusters/${encodeURIComponent(cluster)}/requests`;
    const hasFilter = [...query.keys()].length > 0;
    const response = await fetch(hasFilter ? `${url}?${query.toString()}` : url);
    if (!response.ok) throw new Error(`kube-sim admin answered ${response.status} for ${url}`);
    const body = (await response.json()) as { count?: number; total?: number };
    const n = hasFilter ? body.count : body.total;
    if (typeof n !== 'number')
      throw new Error(`kube-sim admin: no count in ${JSON.stringify(body)}`);
    return n;
  }

  /** Requests counted so far, per cluster. */
  async totals(): Promise<Record<string, number>> {
    const entries = await Promise.all(
      this.info.clusters.map(async (name) => [name, await this.count(name)] as const),
    );
    return Object.fromEntries(entries);
  }

  /** The child's resident set size. */
  rss(): Promise<number> {
    const id = this.nextId++;
    return new Promise<number>((resolve) => {
      const onMessage = (message: FleetMessage): void => {
        if (message.type !== 'rss' || message.id !== id) return;
        this.child.off('message', onMessage);
        resolve(message.rss);
      };
      this.child.on('message', onMessage);
      this.child.send({ type: 'rss', id } satisfies ToFleet);
    });
  }

  /** Closes the IPC channel; the child closes the fleet and exits. */
  stop(): Promise<void> {
    return stopChild(this.child);
  }
}
