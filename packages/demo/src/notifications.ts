/**
 * The demo's notification receiver: a PromotionAlert in the app's namespace sends every
 * promotion event (Standard Webhooks, signed with a demo `whsec_` secret) to a small HTTP
 * server of the demo's, which verifies each delivery with the official `standardwebhooks`
 * library and logs it, so a person sees what a subscriber receives (docs/notifications.md).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Fleet } from 'kube-sim';
import type { GatewayLogger } from 'promotion-gateway';
import { Webhook } from 'standardwebhooks';
import { APP_NAMESPACE } from './objects.js';

/** The demo's PromotionAlert, as `kubectl get palert -n <ns>` shows it. */
export const DEMO_ALERT = 'demo-receiver';

const ALERT_API = 'notifications.promotion-gateway.dev/v1alpha1';

/** What one delivery says, as the receiver logs it. */
interface Delivered {
  type: string;
  data: {
    pipeline?: { namespace: string; name: string };
    environment?: string;
    revision?: string;
    message?: string;
  };
}

/** The demo's receiver, listening; the gateway's allow-list must open its address. */
export interface DemoReceiver {
  /** Where the alert delivers, for the gateway's `notifications.allowedUrlPrefixes`. */
  address: string;
  /** Subscribes the receiver to every event of the app's namespace, logged with `logger`. */
  subscribe(logger: GatewayLogger): void;
  stop(): Promise<void>;
}

/**
 * Starts the receiver on 127.0.0.1 (an ephemeral port); it subscribes once the gateway is
 * built, since a loopback receiver is called only where the gateway's configuration opens it.
 */
export async function startDemoReceiver(fleet: Fleet): Promise<DemoReceiver> {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const webhook = new Webhook(secret);
  let logger: GatewayLogger | undefined;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const event = webhook.verify(body, req.headers as Record<string, string>) as Delivered;
        const { environment, revision, message } = event.data;
        const id = req.headers['webhook-id'];
        logger?.info(
          { id, type: event.type, environment, revision, message },
          'notification received (signature verified)',
        );
        res.writeHead(204).end();
      } catch {
        logger?.warn(
          { id: req.headers['webhook-id'] },
          'notification refused: its signature does not verify',
        );
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = server.address();
  if (port === null || typeof port === 'string') throw new Error('the demo receiver has no port');
  const address = `http://127.0.0.1:${String(port.port)}/promotions`;
  return {
    address,
    subscribe: (log) => {
      logger = log;
      subscribe(fleet, secret, address);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** The Secret with the signing secret, and the PromotionAlert delivering to `address`. */
function subscribe(fleet: Fleet, secret: string, address: string): void {
  const management = fleet.cluster('management');
  management.apply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: DEMO_ALERT, namespace: APP_NAMESPACE },
    type: 'Opaque',
    data: { signingSecret: Buffer.from(secret).toString('base64') },
  });
  management.apply({
    apiVersion: ALERT_API,
    kind: 'PromotionAlert',
    metadata: { name: DEMO_ALERT, namespace: APP_NAMESPACE },
    spec: {
      address,
      secretRef: { name: DEMO_ALERT },
      timeout: '5s',
    },
  });
}
