/**
 * Part (b): what a burst of identical signed events costs the cluster they name. The gateway
 * is idle before and after each burst; kube-sim's request accounting (read through the
 * fleet's admin endpoint) gives the reads. The fleet's admin calls are not counted as requests.
 */
import { APP_NAMESPACE } from '@promotion-gateway/demo';
import type { LoadClient } from './load.js';
import { EVENT_CLUSTER } from './servers.js';
import type { GatewayUnderTest, SignedEvent } from './servers.js';
import { specFor } from './throughput.js';

const HELMRELEASES = 'helmreleases.helm.toolkit.fluxcd.io';
/** Most connections a burst opens (a burst of 100 uses 64, sending as fast as it can). */
const BURST_CONNECTIONS = 64;
/** Quiet time after the queues report idle, so late follow-up work is counted too. */
const SETTLE_MS = 250;
/**
 * Quiet time before a burst: longer than the gateway's spacing between two reads of one object
 * (1 s), so every burst starts as a fresh one would, not inside the previous one's window.
 */
const QUIET_BEFORE_MS = 1_500;
/** Longest wait for the hint queue to drain after a burst. */
const DRAIN_TIMEOUT_MS = 30_000;

/** One burst's figures. */
export interface BurstResult {
  object: string;
  referenced: boolean;
  events: number;
  accepted: number;
  burstMs: number;
  /** GETs of the named object on its cluster caused by the burst. */
  gets: number;
  getsPerEvent: number;
  /** Every counted request per cluster during the burst and its follow-up work. */
  requestsByCluster: Record<string, number>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Waits until no hint is ready, scheduled (a read held back by the spacing counts: the
 * queue's own idle() does not wait for timers) or running, and the pipeline queue is idle.
 */
async function drain(gateway: GatewayUnderTest): Promise<void> {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  for (;;) {
    await gateway.idle();
    const { depth = 0, scheduled = 0, inFlight = 0 } = await gateway.hintStats();
    if (depth + scheduled + inFlight === 0) return;
    if (Date.now() > deadline) throw new Error('hint queue did not drain after a burst');
    await sleep(50);
  }
}

/** Sends `events` copies of `event` as fast as the client can and counts the reads. */
export async function measureBurst(
  client: LoadClient,
  gateway: GatewayUnderTest,
  event: SignedEvent,
  name: string,
  referenced: boolean,
  events: number,
): Promise<BurstResult> {
  await drain(gateway);
  await sleep(QUIET_BEFORE_MS);
  const filter = { verb: 'get' as const, resource: HELMRELEASES, namespace: APP_NAMESPACE, name };
  const { fleet } = gateway;
  const totalsBefore = await fleet.totals();
  const getsBefore = await fleet.count(EVENT_CLUSTER, filter);
  const result = await client.run(
    specFor(gateway, event, Math.min(events, BURST_CONNECTIONS), { requests: events }),
  );
  await drain(gateway);
  await sleep(SETTLE_MS);
  await drain(gateway);
  const gets = (await fleet.count(EVENT_CLUSTER, filter)) - getsBefore;
  const totalsAfter = await fleet.totals();
  const requestsByCluster: Record<string, number> = {};
  for (const [cluster, n] of Object.entries(totalsAfter))
    requestsByCluster[cluster] = n - (totalsBefore[cluster] ?? 0);
  return {
    object: `${EVENT_CLUSTER}:${APP_NAMESPACE}/${name}`,
    referenced,
    events,
    accepted: result.statuses['202'] ?? 0,
    burstMs: result.elapsedMs,
    gets,
    getsPerEvent: gets / events,
    requestsByCluster,
  };
}
