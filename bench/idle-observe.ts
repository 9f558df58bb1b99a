/**
 * What the idle part reads while it runs: kube-sim's count of status writes (through its admin
 * endpoint, whose own calls are not counted), per Pipeline when needed, and each replica's
 * status and promotion_gateway_status_writes_total (its /metrics).
 */
import type { GatewayStatus } from 'promotion-gateway';
import type { ReplicaReading, WriteResults } from './idle-types.js';
import type { Child } from './scale-processes.js';

const PIPELINES = 'pipelines.pipelines.weave.works';
const WRITE_VERBS = ['update', 'patch'] as const;
const RESULTS = ['written', 'conflict', 'unchanged', 'contended'] as const;

/** A replica child as the idle part drives it. */
export interface Replica {
  name: string;
  child: Child;
  /** Its HTTP address (events, /metrics). */
  url: string;
}

async function json<T>(url: string): Promise<T> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${String(response.status)}`);
  return (await response.json()) as T;
}

/** PUT + PATCH of the Pipeline status subresource counted by the management cluster so far. */
export async function statusWrites(adminUrl: string): Promise<number> {
  const counts = await Promise.all(
    WRITE_VERBS.map(async (verb) => {
      const query = new URLSearchParams({ verb, resource: PIPELINES, subresource: 'status' });
      const url = `${adminUrl}/clusters/management/requests?${query.toString()}`;
      return (await json<{ count: number }>(url)).count;
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}

interface Entry {
  verb: string;
  group: string;
  resource: string;
  name: string;
  subresource: string;
  count: number;
}

/** Status writes counted so far per Pipeline name. */
export async function statusWritesByPipeline(adminUrl: string): Promise<Record<string, number>> {
  const snapshot = await json<{ entries: Entry[] }>(`${adminUrl}/clusters/management/requests`);
  const out: Record<string, number> = {};
  for (const e of snapshot.entries) {
    if (`${e.resource}.${e.group}` !== PIPELINES || e.subresource !== 'status') continue;
    if (!(WRITE_VERBS as readonly string[]).includes(e.verb)) continue;
    out[e.name] = (out[e.name] ?? 0) + e.count;
  }
  return out;
}

/** `after - before` per key, keeping only the keys that grew. */
export function grown(
  after: Record<string, number>,
  before: Record<string, number>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, n] of Object.entries(after)) {
    const d = n - (before[key] ?? 0);
    if (d !== 0) out[key] = d;
  }
  return out;
}

/** promotion_gateway_status_writes_total by result, from a Prometheus text exposition. */
export function parseWriteResults(text: string): WriteResults {
  const out = { written: 0, conflict: 0, unchanged: 0, contended: 0 };
  for (const result of RESULTS) {
    const line = new RegExp(
      `^promotion_gateway_status_writes_total\\{result="${result}"\\} (\\d+)`,
      'm',
    ).exec(text);
    out[result] = Number(line?.[1] ?? 0);
  }
  return out;
}

/** `after - before` for each result. */
export function writeDelta(after: WriteResults, before: WriteResults): WriteResults {
  const out = { ...after };
  for (const result of RESULTS) out[result] = after[result] - before[result];
  return out;
}

/** The replica's status() and its status_writes_total now. */
export async function readReplica(replica: Replica): Promise<ReplicaReading> {
  const [status, metrics] = await Promise.all([
    replica.child.ask<GatewayStatus>({ type: 'status' }),
    fetch(`${replica.url}/metrics`).then((r) => r.text()),
  ]);
  return {
    name: replica.name,
    leader: status.leader,
    resyncPasses: status.resyncPasses,
    evaluated: status.evaluated,
    writes: parseWriteResults(metrics),
  };
}
