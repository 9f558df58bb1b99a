/**
 * Part (f), an idle fleet: N Pipelines (the scale fleet, nothing rolling out) watched by two
 * replicas of the gateway, each in a process of its own with the Dockerfile's Node flags,
 * sharing the resync Lease. After both start-up passes and their status writes have settled,
 * an idle window: the Lease holder makes periodic passes, and one replica alone hears repeated
 * Flux events that bring no news. The bar: no status write in the window.
 */
import { upgradeEvent } from 'kube-sim/flux';
import type { SimObject } from 'kube-sim';
import { productionNodeFlags } from './node-flags.js';
import {
  grown,
  readReplica,
  statusWrites,
  statusWritesByPipeline,
  writeDelta,
  type Replica,
} from './idle-observe.js';
import type {
  IdleResult,
  IdleSpec,
  IdleStartup,
  IdleWindow,
  ReplicaReading,
} from './idle-types.js';
import { Child } from './scale-processes.js';
import type { ScaleFleetInfo, StatusPair } from './scale-types.js';
import { signedEvent } from './servers.js';

/** The replicas' names: leader-election identities and promotion instance ids. */
const REPLICAS = ['replica-a', 'replica-b'];
/** Longest the fleet build or a replica's start-up may take. */
const START_TIMEOUT_MS = 180_000;
/** Start-up writes have settled when none came in this long with both replicas idle. */
const QUIET_MS = 2_000;
/** Longest the start-up writes may take to settle, or the queues to drain. */
const SETTLE_TIMEOUT_MS = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `promise`, or a rejection naming `what` after `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`idle part: no ${what} within ${String(ms)} ms`));
    }, ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const allIdle = (replicas: readonly Replica[]) =>
  within(
    Promise.all(replicas.map((r) => r.child.ask({ type: 'idle' }))),
    SETTLE_TIMEOUT_MS,
    'idle queues',
  );

/** Forks both replicas at once (into `children`, for the caller to stop) until both are ready. */
async function startReplicas(
  spec: IdleSpec,
  info: ScaleFleetInfo,
  children: Child[],
): Promise<Replica[]> {
  return Promise.all(
    REPLICAS.map(async (name) => {
      const replica = { name, resyncIntervalMs: spec.resyncIntervalMs };
      const init = { type: 'start', spec: spec.fleet, fleet: info, replica };
      const child = Child.fork('scale-gateway-process.js', init, productionNodeFlags());
      children.push(child);
      const ready = await child.next<{ url: string }>('ready', START_TIMEOUT_MS);
      return { name, child, url: ready.url };
    }),
  );
}

/** Waits until no status write came in QUIET_MS with both replicas idle (bounded). */
async function settle(replicas: readonly Replica[], adminUrl: string) {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  let before = await statusWrites(adminUrl);
  for (;;) {
    await allIdle(replicas);
    await sleep(QUIET_MS);
    const after = await statusWrites(adminUrl);
    if (after === before) return { writes: after, settled: true };
    if (Date.now() > deadline) return { writes: after, settled: false };
    before = after;
  }
}

async function startup(
  spec: IdleSpec,
  info: ScaleFleetInfo,
  children: Child[],
): Promise<{ replicas: Replica[]; startup: IdleStartup }> {
  const started = Date.now();
  const replicas = await startReplicas(spec, info, children);
  const { writes, settled } = await settle(replicas, info.adminUrl);
  return {
    replicas,
    startup: {
      ms: Date.now() - started,
      settled,
      writes,
      writesPerPipeline: writes / spec.fleet.pipelines,
      replicas: await Promise.all(replicas.map(readReplica)),
    },
  };
}

/** The deployed chart version and release number of a HelmRelease as stored. */
function deployed(object: SimObject): { version: string; number: number } {
  const history = (object.status as { history?: { chartVersion?: string; version?: number }[] })
    .history;
  return { version: history?.[0]?.chartVersion ?? '1.0.0', number: history?.[0]?.version ?? 1 };
}

/** One no-news event every spec.eventIntervalMs to `to` until `until`, rotating over `objects`. */
async function sendEvents(
  spec: IdleSpec,
  info: ScaleFleetInfo,
  objects: readonly SimObject[],
  to: Replica,
  until: number,
) {
  const { cluster, hmacKey } = info.probe;
  let sent = 0;
  let accepted = 0;
  for (let next = Date.now(); next < until && objects.length > 0; next += spec.eventIntervalMs) {
    await sleep(next - Date.now());
    const object = objects[sent % objects.length] ?? {};
    const { version, number } = deployed(object);
    const event = signedEvent(cluster, hmacKey, upgradeEvent(object, version, number, new Date()));
    const response = await fetch(`${to.url}${event.path}`, {
      method: 'POST',
      headers: event.headers,
      body: event.body,
    });
    await response.arrayBuffer();
    sent++;
    if (response.status === 202) accepted++;
  }
  return { sent, accepted };
}

/** Everything that is compared between the window's start and its end. */
async function reading(replicas: readonly Replica[], adminUrl: string) {
  return {
    at: Date.now(),
    writes: await statusWrites(adminUrl),
    byPipeline: await statusWritesByPipeline(adminUrl),
    replicas: await Promise.all(replicas.map(readReplica)),
  };
}

type Reading = Awaited<ReturnType<typeof reading>>;

/** Per replica (in REPLICAS order), `value(after) - value(before)`. */
function perReplica<T>(
  before: Reading,
  after: Reading,
  value: (a: ReplicaReading, b: ReplicaReading) => T,
) {
  return Object.fromEntries(
    after.replicas.map((a, i) => [a.name, value(a, before.replicas[i] ?? a)]),
  );
}

/** The window's figures from its two readings. */
function compare(before: Reading, after: Reading) {
  const writes = after.writes - before.writes;
  const ms = after.at - before.at;
  return {
    ms,
    writes,
    writesPerMinute: (writes * 60_000) / ms,
    passes: perReplica(before, after, (a, b) => a.resyncPasses - b.resyncPasses),
    replicaWrites: perReplica(before, after, (a, b) => writeDelta(a.writes, b.writes)),
    writtenPipelines: grown(after.byPipeline, before.byPipeline),
  };
}

/** The status at the window's start and now of the Pipeline written most, if any. */
async function example(fleet: Child, written: Record<string, number>) {
  const most = Object.entries(written).sort((a, b) => b[1] - a[1])[0]?.[0];
  if (most === undefined) return undefined;
  const pairs = await fleet.ask<StatusPair[]>({ type: 'statuses-since', names: [most] });
  return pairs[0];
}

async function window(
  spec: IdleSpec,
  info: ScaleFleetInfo,
  fleet: Child,
  replicas: Replica[],
): Promise<IdleWindow> {
  const count = spec.eventObjects;
  const objects = await fleet.ask<SimObject[]>({
    type: 'objects',
    cluster: info.probe.cluster,
    count,
  });
  await fleet.ask({ type: 'mark-statuses' });
  const before = await reading(replicas, info.adminUrl);
  // Events go to a replica that does not hold the Lease (the second one when neither does).
  const to = replicas.find((_, i) => before.replicas[i]?.leader === false) ?? replicas[1];
  if (to === undefined) throw new Error('idle part: no replica');
  const until = before.at + spec.windowMs;
  const events = await sendEvents(spec, info, objects, to, until);
  await sleep(until - Date.now());
  await allIdle(replicas);
  const after = await reading(replicas, info.adminUrl);
  const figures = compare(before, after);
  return {
    ...figures,
    eventsTo: to.name,
    eventsToLeader: before.replicas.find((r) => r.name === to.name)?.leader ?? false,
    eventsSent: events.sent,
    eventsAccepted: events.accepted,
    example: await example(fleet, figures.writtenPipelines),
  };
}

/** Runs the idle part; every child it started is stopped before it resolves. */
export async function measureIdle(spec: IdleSpec): Promise<IdleResult> {
  const started = Date.now();
  const fleet = Child.fork('scale-fleet-process.js', { type: 'start', spec: spec.fleet });
  const children: Child[] = [];
  try {
    const { info } = await fleet.next<{ info: ScaleFleetInfo }>('ready', START_TIMEOUT_MS);
    const s = await startup(spec, info, children);
    const w = await window(spec, info, fleet, s.replicas);
    return {
      spec,
      durationMs: Date.now() - started,
      buildMs: info.buildMs,
      startup: s.startup,
      window: w,
    };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await fleet.stop();
  }
}

/** The part as `npm run bench` runs it: 1,000 Pipelines; a 20 s window in quick mode, else 60 s. */
export function idleSpec(quick: boolean): IdleSpec {
  return {
    fleet: { pipelines: 1_000, clusters: 5, layout: 'env' },
    windowMs: quick ? 20_000 : 60_000,
    resyncIntervalMs: 5_000,
    eventIntervalMs: 1_000,
    eventObjects: 20,
  };
}
