/**
 * A notification receiver for the tests: answers 503 while down and 204 while up, and keeps
 * every attempt it was sent (its webhook-id, body and whether it was accepted), so a test can
 * check that each event's body is the same on every attempt and what arrived in which order.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

/** One request the receiver got. */
export interface ReceivedAttempt {
  id: string;
  headers: IncomingHttpHeaders;
  body: string;
  accepted: boolean;
}

/** The receiver; `url` is set once started. */
export class NotifyReceiver {
  up = false;
  /**
   * Up, it also answers 503 to an attempt signed before this (seconds): an attempt a gateway
   * signed just before a test stepped its clock can still be on its way when the receiver comes
   * up, and a Standard Webhooks receiver would refuse its old timestamp.
   */
  signedSince = 0;
  /** Every attempt, refused or accepted, in arrival order. */
  readonly attempts: ReceivedAttempt[] = [];
  url = '';
  private server: Server | undefined;

  /** The attempts it accepted, in arrival order. */
  get accepted(): ReceivedAttempt[] {
    return this.attempts.filter((a) => a.accepted);
  }

  /** How many attempts it refused (down, or signed too long ago). */
  get refused(): number {
    return this.attempts.filter((a) => !a.accepted).length;
  }

  /** Listens on a free loopback port. */
  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const id = String(req.headers['webhook-id']);
        const fresh = Number(req.headers['webhook-timestamp']) >= this.signedSince;
        const accepted = this.up && fresh;
        this.attempts.push({ id, headers: req.headers, body, accepted });
        res.writeHead(accepted ? 204 : 503).end();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    this.url = `http://127.0.0.1:${String(address.port)}/hooks`;
  }

  /** Stops listening. */
  close(): Promise<void> {
    const server = this.server;
    return new Promise((resolve) => {
      if (server === undefined) resolve();
      else
        server.close(() => {
          resolve();
        });
    });
  }
}

/** The Standard Webhooks signing key the tests' alerts sign with. */
export const TEST_SIGNING_SECRET = `whsec_${Buffer.from('a notification key of 32 bytes!!').toString('base64')}`;

/** What subscribeAlert applies objects through: kube-sim's management cluster. */
interface ObjectSink {
  apply(object: Record<string, unknown>): unknown;
}

/**
 * PromotionAlert `hooks` in `ns` (and its Secret, signing with TEST_SIGNING_SECRET) sending
 * `eventTypes` of the namespace's Pipelines to `url`.
 */
export function subscribeAlert(
  management: ObjectSink,
  ns: string,
  url: string,
  eventTypes: readonly string[],
): void {
  management.apply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'hooks', namespace: ns },
    type: 'Opaque',
    data: { signingSecret: Buffer.from(TEST_SIGNING_SECRET).toString('base64') },
  });
  management.apply({
    apiVersion: 'notifications.promotion-gateway.dev/v1alpha1',
    kind: 'PromotionAlert',
    metadata: { name: 'hooks', namespace: ns },
    spec: {
      address: url,
      secretRef: { name: 'hooks' },
      eventTypes: [...eventTypes],
      timeout: '1s',
    },
  });
}
