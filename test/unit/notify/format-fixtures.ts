/** Events and keys for the formats' tests. */
import { createPrivateKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import type { NotificationEvent } from '../../../src/notify/notification-event.js';

/** A PromotionSucceeded event with two targets, one of them ready. */
export function promotionEvent(overrides: Partial<NotificationEvent> = {}): NotificationEvent {
  return {
    id: 'evt_abcdefghijklmnopqrstuv',
    type: 'PromotionSucceeded',
    time: '2026-03-04T05:06:07.089Z',
    pipeline: { namespace: 'team-a', name: 'podinfo' },
    environment: 'staging',
    revision: '6.5.4@sha256:0123abcd',
    reason: 'PromotionSucceeded',
    message: 'podinfo 6.5.4 was promoted to staging',
    severity: 'info',
    targets: [
      {
        cluster: 'staging-eu',
        namespace: 'podinfo',
        name: 'podinfo',
        kind: 'HelmRelease',
        ready: true,
        revision: '6.5.4',
      },
      { cluster: 'staging-us', namespace: 'podinfo', name: 'podinfo', kind: 'HelmRelease' },
    ],
    attempt: 1,
    ...overrides,
  };
}

/** A fresh Standard Webhooks secret: the key bytes and their `whsec_` form. */
export function whsec(): { key: Buffer; text: string } {
  const key = randomBytes(32);
  return { key, text: `whsec_${key.toString('base64')}` };
}

/** A fresh ed25519 key pair. */
export function ed25519Pair(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync('ed25519');
}

/** The ed25519 private key of a 32-byte seed (RFC 8410 PKCS#8). */
export function ed25519FromSeed(seed: Buffer): KeyObject {
  const prefix = Buffer.from('302e020100300506032b657004220420', 'hex');
  return createPrivateKey({ key: Buffer.concat([prefix, seed]), format: 'der', type: 'pkcs8' });
}
