/**
 * The webhook endpoint of the chaos run, which also plays Flux downstream: it verifies each
 * delivery's Standard Webhooks signature with the official library, records it, and when it
 * accepts, works on it for 100 to 800 ms, rolls the environment's HelmRelease out to the delivered
 * revision, then answers 204, then sends Flux's event for that rollout to a live replica. Its
 * faults: answering 500 to a share of the deliveries, and being down (listener closed:
 * connection refused; a delivery in the works then is dropped, status 0 in the journal).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { TestFleet } from '../fleet.js';
import { rollOut, type App, type CapturedEvent } from './apps.js';
import type { Delivery, Journal } from './journal.js';

/** What the receiver needs from the run. */
export interface ReceiverOptions {
  fleet: TestFleet;
  journal: Journal;
  apps: ReadonlyMap<string, App>;
  /** The endpoint's secret, `whsec_<base64>`, as the gateway's configuration holds it. */
  secret: string;
  random: () => number;
  /** Called with the Flux event of every rollout the receiver made (after its answer). */
  onRollout: (event: CapturedEvent) => void;
}

/** How long the bot works on a delivery before it answers. */
const WORK_MS = { min: 100, max: 800 };

interface Payload {
  pipeline: { namespace: string; name: string };
  environment: string;
  revision: string;
  attempt: number;
}

/** The receiver; `errorRate` is the share of deliveries answered 500 (0 = none). */
export class Receiver {
  errorRate = 0;
  private readonly server: Server;
  private readonly webhook: Webhook;
  private port = 0;

  constructor(private readonly options: ReceiverOptions) {
    this.webhook = new Webhook(options.secret);
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.handle(req, res, Buffer.concat(chunks).toString('utf8'));
      });
    });
  }

  /** The URL the gateway's configuration names (the same port across outages). */
  get url(): string {
    return `http://127.0.0.1:${String(this.port)}/promote`;
  }

  /** Listens on an ephemeral loopback port. */
  async start(): Promise<void> {
    await this.listen(0);
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Down: the listener closes and every connection is dropped, so connecting is refused. */
  async down(): Promise<void> {
    const closed = new Promise<void>((resolve) => {
      this.server.close(() => {
        resolve();
      });
    });
    this.server.closeAllConnections();
    await closed;
  }

  /**
   * Up again on the same port, which the gateway's configuration names. Another process may
   * hold it for a moment (an outgoing connection's ephemeral port): tried again for up to 10 s.
   */
  async up(): Promise<void> {
    for (let tries = 1; ; tries++) {
      try {
        await this.listen(this.port);
        return;
      } catch (err) {
        if (tries >= 40) throw err;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }

  /** Stops for good. */
  async close(): Promise<void> {
    if (this.server.listening) await this.down();
  }

  private listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.removeListener('error', reject);
        resolve();
      });
    });
  }

  private handle(req: IncomingMessage, res: ServerResponse, body: string): void {
    const at = Date.now();
    let payload: Payload | undefined;
    let signatureOk = true;
    try {
      payload = this.webhook.verify(body, req.headers as Record<string, string>) as Payload;
    } catch {
      signatureOk = false;
      try {
        payload = JSON.parse(body) as Payload;
      } catch {
        payload = undefined;
      }
    }
    const { random } = this.options;
    const status = !signatureOk ? 401 : random() < this.errorRate ? 500 : 204;
    const delivery = this.record(at, req, payload, status, signatureOk);
    // A deploy bot takes its time (a commit, a push): attempts stay in flight long enough for a
    // kill or a second replica to meet them.
    setTimeout(
      () => {
        this.answer(res, delivery, status);
      },
      WORK_MS.min + random() * (WORK_MS.max - WORK_MS.min),
    );
  }

  private answer(res: ServerResponse, delivery: Delivery | undefined, status: number): void {
    if (delivery !== undefined) delivery.doneAt = Date.now();
    if (!this.server.listening) {
      // The receiver went down meanwhile: the bot died with it, nothing was done.
      if (delivery !== undefined) delivery.status = 0;
      res.destroy();
      return;
    }
    if (status !== 204 || delivery === undefined) {
      res.writeHead(status).end();
      return;
    }
    // Flux applies what the deploy bot committed: the environment runs the revision before the
    // endpoint answers, so a promotion the gateway sees succeed has arrived. A bot whose caller
    // went away (a killed replica) finishes its job all the same.
    let event: CapturedEvent | undefined;
    try {
      event = this.rollOut(delivery);
    } catch (err) {
      // The test bed failed, not the gateway: say so, and refuse the delivery as a bot would.
      this.options.journal.step(`receiver could not roll out: ${String(err)}`);
      delivery.status = 500;
      if (!res.destroyed) res.writeHead(500).end();
      return;
    }
    if (!res.destroyed) res.writeHead(204).end();
    if (event !== undefined) this.options.onRollout(event);
  }

  private record(
    at: number,
    req: IncomingMessage,
    payload: Payload | undefined,
    status: number,
    signatureOk: boolean,
  ): Delivery | undefined {
    if (payload === undefined) return undefined;
    const delivery: Delivery = {
      at,
      pipeline: `${payload.pipeline.namespace}/${payload.pipeline.name}`,
      env: payload.environment,
      revision: payload.revision,
      webhookId: String(req.headers['webhook-id']),
      attempt: payload.attempt,
      status,
      signatureOk,
    };
    this.options.journal.deliveries.push(delivery);
    return delivery;
  }

  private rollOut(delivery: Delivery): CapturedEvent | undefined {
    const { fleet, journal, apps } = this.options;
    const app = apps.get(delivery.pipeline);
    if (app === undefined) return undefined;
    const event = rollOut(fleet.env(delivery.env), delivery.env, app, delivery.revision);
    journal.rollouts.push({
      at: Date.now(),
      pipeline: app.id,
      env: delivery.env,
      revision: delivery.revision,
    });
    return event;
  }
}
