/**
 * The three servers under test, each in a process of its own started with the production
 * Node.js flags (node-flags.ts): the real gateway (gateway-process.ts: createGateway against the
 * demo's kube-sim fleet, wired as `npm start` wires it), a bare fastify route that answers 202
 * (bare-process.ts), the ceiling, and the minimal reference route (reference-process.ts: raw
 * body, one HMAC, JSON.parse, ajv, enqueue), the unit of work the throughput bar is measured
 * against.
 */
import { createHmac } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import type { Level } from 'pino';
import { forkReady, stopChild } from './child.js';
import type { FleetHandle } from './fleet.js';
import type {
  GatewayMessage,
  GatewayRequest,
  GatewayStart,
  ReferenceStart,
  SignedEvent,
} from './gateway-types.js';
import type { ImportCost } from './import-cost-process.js';
import type { MemoryReport } from './memory.js';

export type { SignedEvent } from './gateway-types.js';

/** The environment (and kube-sim cluster) whose Flux sends the benchmark's events. */
export const EVENT_CLUSTER = 'dev';
/** A HelmRelease name no Pipeline references. */
export const UNREFERENCED_NAME = 'not-in-any-pipeline';

/** A listening server under test. */
export interface ServerUnderTest {
  host: string;
  port: number;
  /** Its process id (for its CPU time, read from /proc). */
  pid: number | undefined;
  close(): Promise<void>;
}

/** The real gateway in its process, plus what the benchmark needs to drive and observe it. */
export interface GatewayUnderTest extends ServerUnderTest {
  /** The kube-sim fleet (another process); its request accounting counts the gateway's reads. */
  fleet: FleetHandle;
  /** The web view's port, served as the demo serves it (part (g)). */
  uiPort: number | undefined;
  /** A signed upgrade event for the referenced HelmRelease podinfo/podinfo in dev. */
  referenced: SignedEvent;
  /** A signed upgrade event for a HelmRelease in dev that no Pipeline references. */
  unreferenced: SignedEvent;
  /** Resolves when no hint or pipeline check is waiting or running in the gateway. */
  idle(): Promise<void>;
  /** The hint queue's counters. */
  hintStats(): Promise<Record<string, number>>;
  /** Ends the gateway process's current memory phase and starts `phase`. */
  memoryPhase(phase: string): Promise<void>;
  /** Stops the gateway process's memory sampling and returns what it saw. */
  memoryReport(): Promise<MemoryReport>;
}

/** The bare fastify route (bare-process.ts) in its own process, with `nodeFlags`. */
export async function startBareServer(nodeFlags: readonly string[]): Promise<ServerUnderTest> {
  const { child, ready: port } = await forkReady('bare-process.js', (m) => Number(m.port), {
    nodeFlags,
  });
  return { host: '127.0.0.1', port, pid: child.pid, close: () => stopChild(child) };
}

/**
 * The reference route (reference-process.ts) in its own process, with `nodeFlags`; it
 * accepts events signed with `key` (the HMAC key, as text, of the cluster the events come from).
 */
export async function startReferenceServer(
  nodeFlags: readonly string[],
  key: string,
): Promise<ServerUnderTest> {
  const init: ReferenceStart = { type: 'start', key };
  const { child, ready: port } = await forkReady('reference-process.js', (m) => Number(m.port), {
    nodeFlags,
    init,
  });
  return { host: '127.0.0.1', port, pid: child.pid, close: () => stopChild(child) };
}

/**
 * What importing @kubernetes/client-node and then the gateway's modules costs in RSS, measured
 * in a fresh process with `nodeFlags` (import-cost-process.ts).
 */
export async function measureImportCost(nodeFlags: readonly string[]): Promise<ImportCost> {
  const { child, ready } = await forkReady(
    'import-cost-process.js',
    (m): ImportCost => ({
      baselineRssBytes: Number(m.baselineRssBytes),
      clientNodeRssBytes: Number(m.clientNodeRssBytes),
      gatewayModulesRssBytes: Number(m.gatewayModulesRssBytes),
    }),
    { nodeFlags: [...nodeFlags, '--expose-gc'] },
  );
  await stopChild(child);
  return ready;
}

/** Signs `body` as Flux's generic-hmac Provider does for `cluster`. */
export function signedEvent(cluster: string, key: string, body: string): SignedEvent {
  const signature = createHmac('sha256', Buffer.from(key, 'utf8')).update(body).digest('hex');
  return {
    path: `/v1/events/${cluster}`,
    headers: {
      'Content-Type': 'application/json',
      'Gotk-Component': 'helm-controller',
      'X-Signature': `sha256=${signature}`,
    },
    body,
  };
}

/** A request without its id (distributes over the union). */
type Unnumbered<T> = T extends unknown ? Omit<T, 'id'> : never;

/** Sends requests to the gateway child and matches its replies by id. */
function requester(child: ChildProcess) {
  let nextId = 1;
  const pending = new Map<number, (value: unknown) => void>();
  child.on('message', (message: GatewayMessage) => {
    if (message.type !== 'reply') return;
    pending.get(message.id)?.(message.value);
    pending.delete(message.id);
  });
  return <T>(request: Unnumbered<GatewayRequest>): Promise<T> =>
    new Promise<T>((resolve) => {
      const id = nextId++;
      pending.set(id, resolve as (value: unknown) => void);
      child.send({ ...request, id });
    });
}

/**
 * Starts the gateway process against `fleet` with `nodeFlags` (gateway-process.ts) and resolves
 * once its first resync pass has completed and its queues are idle.
 */
export async function startGateway(
  fleet: FleetHandle,
  logLevel: Level,
  nodeFlags: readonly string[],
): Promise<GatewayUnderTest> {
  const init: GatewayStart = { type: 'start', fleet: fleet.info, logLevel };
  const { child, ready } = await forkReady(
    'gateway-process.js',
    (m) => m as GatewayMessage & { type: 'ready' },
    { nodeFlags, init },
  );
  const ask = requester(child);
  return {
    host: '127.0.0.1',
    port: ready.port,
    uiPort: ready.uiPort,
    pid: child.pid,
    fleet,
    referenced: ready.referenced,
    unreferenced: ready.unreferenced,
    idle: () => ask<undefined>({ type: 'idle' }),
    hintStats: () => ask<Record<string, number>>({ type: 'hint-stats' }),
    memoryPhase: (phase) => ask<undefined>({ type: 'memory-phase', phase }),
    memoryReport: () => ask<MemoryReport>({ type: 'memory-report' }),
    close: () => stopChild(child),
  };
}
