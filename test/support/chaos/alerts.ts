/**
 * Notifications under chaos: one PromotionAlert per team namespace subscribes a second receiver
 * to PromotionSucceeded. At the end, every success the Pipelines' history records must have
 * reached it, or be counted superseded in its alert's status (a newer revision's success made it
 * stale), with nothing left in the backlog and nothing dropped.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestFleet } from '../fleet.js';
import { statusOf, type App } from './apps.js';
import { keyOf } from './journal.js';
import { DOWNSTREAM } from './settle.js';

const ALERT_API = 'notifications.promotion-gateway.dev/v1alpha1';
const ALERT_NAME = 'chaos-succeeded';

/** The status fields the check reads. */
interface AlertStatus {
  backlog?: number;
  counters?: { delivered?: number; failed?: number; superseded?: number; dropped?: number };
}

/** The receiver of the alerts: records each PromotionSucceeded (pipeline env revision). */
export class AlertReceiver {
  readonly received = new Set<string>();
  deliveries = 0;
  private readonly server: Server;

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.deliveries++;
        this.record(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(204).end();
      });
    });
  }

  private record(body: string): void {
    try {
      const { data } = JSON.parse(body) as {
        data?: { type?: string; pipeline?: { namespace: string; name: string } } & Record<
          string,
          string
        >;
      };
      if (data?.type !== 'PromotionSucceeded' || data.pipeline === undefined) return;
      const { namespace, name } = data.pipeline;
      this.received.add(
        keyOf(`${namespace}/${name}`, String(data.environment), String(data.revision)),
      );
    } catch {
      // Not ours to judge here: an unreadable body simply counts as not delivered.
    }
  }

  /** Listens on a loopback port; resolves with the address alerts post to. */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${String((this.server.address() as AddressInfo).port)}/promotions`;
  }

  /** Stops it. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => {
      this.server.close(() => {
        resolve();
      });
    });
  }
}

/** The team namespaces of `apps`. */
export function namespacesOf(apps: readonly App[]): string[] {
  return [...new Set(apps.map((a) => a.ns))];
}

/** One PromotionAlert per namespace, every Pipeline of it, PromotionSucceeded to `address`. */
export function createAlerts(fleet: TestFleet, namespaces: readonly string[], address: string) {
  for (const namespace of namespaces) {
    fleet.management.apply({
      apiVersion: ALERT_API,
      kind: 'PromotionAlert',
      metadata: { name: ALERT_NAME, namespace },
      spec: { type: 'generic', address, eventTypes: ['PromotionSucceeded'], timeout: '5s' },
    });
  }
}

function alertStatus(fleet: TestFleet, namespace: string): AlertStatus | undefined {
  const object = fleet.management.get(ALERT_API, 'PromotionAlert', namespace, ALERT_NAME);
  return (object as { status?: AlertStatus } | undefined)?.status;
}

/** The successes `app`'s history records, as `pipeline env revision` keys. */
function successes(fleet: TestFleet, app: App): string[] {
  const envs = statusOf(fleet, app)?.environments ?? {};
  return DOWNSTREAM.flatMap((env) =>
    (envs[env]?.history ?? [])
      .filter((h) => h.succeededTime !== undefined)
      .map((h) => keyOf(app.id, env, h.revision)),
  );
}

/**
 * Per alert: the successes recorded but never delivered beyond what its status counts
 * superseded, a backlog left, or events dropped. Also what the end of the run waits on: the
 * last successes are recorded moments before the alerts' status can count them.
 */
export function undeliveredSuccesses(
  fleet: TestFleet,
  apps: readonly App[],
  receiver: AlertReceiver,
): string[] {
  const out: string[] = [];
  for (const ns of namespacesOf(apps)) {
    const status = alertStatus(fleet, ns);
    const expected = apps.filter((a) => a.ns === ns).flatMap((a) => successes(fleet, a));
    const missing = expected.filter((key) => !receiver.received.has(key));
    const superseded = status?.counters?.superseded ?? 0;
    const where = `alert ${ns}/${ALERT_NAME} (backlog ${String(status?.backlog)}, counters ${JSON.stringify(status?.counters ?? {})})`;
    if (missing.length > superseded)
      out.push(
        `${where}: ${String(missing.length)} of ${String(expected.length)} recorded successes never delivered, more than the ${String(superseded)} superseded, e.g. ${missing.slice(0, 4).join('; ')}`,
      );
    if ((status?.backlog ?? 1) > 0) out.push(`${where}: events left undelivered`);
    if ((status?.counters?.dropped ?? 0) > 0) out.push(`${where}: events dropped`);
  }
  return out;
}
