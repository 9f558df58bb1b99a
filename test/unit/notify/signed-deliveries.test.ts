/**
 * Signed deliveries as a receiver checks them: the official Standard Webhooks library
 * (`standardwebhooks`, `new Webhook(whsec).verify(body, headers)`) accepts every generic and
 * cloudevents delivery and refuses a tampered one; `v1a` verifies with the ed25519 public key
 * through node:crypto; both signatures match the specification's published test vectors; the
 * Secret's headers never replace the gateway's.
 */
import { verify } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { standardWebhooksKey } from '../../../src/config/secret-sources.js';
import {
  formatDelivery,
  type DeliveryFormat,
  type DeliveryRequest,
} from '../../../src/notify/delivery-request.js';
import {
  signedContent,
  webhookSignature,
  webhookSignatureV1a,
} from '../../../src/outbound/webhook-signing.js';
import { NOTIFICATION_TYPES } from '../../../src/notify/notification-event.js';
import { ed25519FromSeed, ed25519Pair, promotionEvent, whsec } from './format-fixtures.js';

const SIGNED_FORMATS: DeliveryFormat[] = [{ type: 'generic' }, { type: 'cloudevents' }];

/** The `v1a` signatures of a request that verify with `publicKey` over its content. */
function verifiedV1a(
  request: DeliveryRequest,
  publicKey: ReturnType<typeof ed25519Pair>['publicKey'],
) {
  const content = signedContent(
    request.headers['webhook-id']!,
    Number(request.headers['webhook-timestamp']),
    request.body,
  );
  return request.headers['webhook-signature']!.split(' ')
    .filter((s) => s.startsWith('v1a,'))
    .filter((s) =>
      verify(null, Buffer.from(content), publicKey, Buffer.from(s.slice(4), 'base64')),
    );
}

describe('the specification test vectors', () => {
  const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
  const body = '{"test": 2432232314}';

  it('v1 equals the reference libraries signature for the same whsec_ secret', () => {
    const key = standardWebhooksKey(Buffer.from('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'))!;
    expect(webhookSignature(key, id, 1614265330, body)).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('v1a equals the Go reference library signature for its test seed', () => {
    const key = ed25519FromSeed(
      Buffer.from('VEVTVFNJR05JTkdLRVlET05PVFVTRVRISVNGT1JBTlk=', 'base64'),
    );
    expect(webhookSignatureV1a(key, id, 1614265330, body)).toBe(
      'v1a,tQ9V2XOqn7jL/DQenEFpqIugdBVtiMmER5mhSkXBNwM0mkATuDe6KYYUuxqtaiHeYGb7KaaBRdM5WqyeFiL8Ag==',
    );
  });

  it('v1a refuses a key that is not an ed25519 private key', () => {
    const { publicKey } = ed25519Pair();
    expect(webhookSignatureV1a(publicKey, id, 1, body)).toBeUndefined();
  });
});

describe.each(SIGNED_FORMATS)('a $type delivery with a whsec_ secret', (format) => {
  const secret = whsec();
  const receiver = new Webhook(secret.text);

  it.each(NOTIFICATION_TYPES)('verifies with standardwebhooks for %s', (type) => {
    const request = formatDelivery(
      promotionEvent({ type, reason: type, message: `a "quoted" message \u2028 🚀` }),
      format,
      { signingSecret: secret.key },
      Date.now(),
    );
    expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(receiver.verify(request.body, request.headers)).toEqual(JSON.parse(request.body));
  });

  it('is refused when the body, the id or the timestamp is changed', () => {
    const request = formatDelivery(
      promotionEvent(),
      format,
      { signingSecret: secret.key },
      Date.now(),
    );
    const tamperedBody = request.body.replace('6.5.4', '6.5.5');
    expect(tamperedBody).not.toBe(request.body);
    expect(() => receiver.verify(tamperedBody, request.headers)).toThrow(/signature/i);
    const otherId = { ...request.headers, 'webhook-id': 'evt_other' };
    expect(() => receiver.verify(request.body, otherId)).toThrow(/signature/i);
    const ts = String(Number(request.headers['webhook-timestamp']) - 1);
    expect(() =>
      receiver.verify(request.body, { ...request.headers, 'webhook-timestamp': ts }),
    ).toThrow(/signature/i);
  });

  it('with a raw (not whsec_) secret verifies with the library in raw format', () => {
    const raw = Buffer.from('a raw secret of some length, not base64!');
    const request = formatDelivery(promotionEvent(), format, { signingSecret: raw }, Date.now());
    expect(new Webhook(raw, { format: 'raw' }).verify(request.body, request.headers)).toBeTruthy();
  });

  it('is refused by a receiver holding another secret', () => {
    const request = formatDelivery(
      promotionEvent(),
      format,
      { signingSecret: secret.key },
      Date.now(),
    );
    expect(() => new Webhook(whsec().text).verify(request.body, request.headers)).toThrow(
      /signature/i,
    );
  });

  it('carries v1 then v1a when both keys are given, each verifying', () => {
    const pair = ed25519Pair();
    const request = formatDelivery(
      promotionEvent(),
      format,
      { signingSecret: secret.key, signingKey: pair.privateKey },
      Date.now(),
    );
    const signatures = request.headers['webhook-signature']!.split(' ');
    expect(signatures.map((s) => s.split(',')[0])).toEqual(['v1', 'v1a']);
    expect(receiver.verify(request.body, request.headers)).toBeTruthy();
    expect(verifiedV1a(request, pair.publicKey)).toHaveLength(1);
    expect(verifiedV1a(request, ed25519Pair().publicKey)).toHaveLength(0);
    const tampered = { ...request, body: request.body.replace('staging', 'prod') };
    expect(verifiedV1a(tampered, pair.publicKey)).toHaveLength(0);
  });

  it('with only an ed25519 key carries v1a alone', () => {
    const pair = ed25519Pair();
    const request = formatDelivery(promotionEvent(), format, { signingKey: pair.privateKey }, 0);
    expect(request.headers['webhook-signature']).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    expect(verifiedV1a(request, pair.publicKey)).toHaveLength(1);
  });
});

describe('headers', () => {
  const nowMs = 1_767_000_000_999;

  it('generic always names the event and the attempt, signs only with a key', () => {
    const request = formatDelivery(promotionEvent(), { type: 'generic' }, {}, nowMs);
    expect(request.headers).toEqual({
      'content-type': 'application/json',
      'webhook-id': 'evt_abcdefghijklmnopqrstuv',
      'webhook-timestamp': '1767000000',
    });
  });

  it('cloudevents, slack and msteams carry no Standard Webhooks header unless signed', () => {
    for (const type of ['cloudevents', 'slack', 'msteams'] as const) {
      const request = formatDelivery(promotionEvent(), { type }, {}, nowMs);
      expect(Object.keys(request.headers)).toEqual(['content-type']);
      const signed = formatDelivery(
        promotionEvent(),
        { type },
        { signingSecret: whsec().key },
        nowMs,
      );
      expect(Object.keys(signed.headers).sort()).toEqual([
        'content-type',
        'webhook-id',
        'webhook-signature',
        'webhook-timestamp',
      ]);
    }
  });

  it('an empty signing secret signs nothing', () => {
    const request = formatDelivery(
      promotionEvent(),
      { type: 'slack' },
      { signingSecret: Buffer.alloc(0) },
      nowMs,
    );
    expect(request.headers['webhook-signature']).toBeUndefined();
  });

  it('the Secret headers are added but never replace the gateway ones', () => {
    const secret = whsec();
    const extra = {
      Authorization: 'Bearer t0ken',
      'X-Team': 'a',
      'Content-Type': 'text/plain',
      'WEBHOOK-ID': 'forged',
      'webhook-timestamp': '1',
      'Webhook-Signature': 'v1,forged',
      'X-Split': 'a\r\nX-Injected: 1',
      'X-Newline': 'a\nb',
      'bad name': 'x',
    };
    const request = formatDelivery(
      promotionEvent(),
      { type: 'generic' },
      { signingSecret: secret.key, headers: extra },
      Date.now(),
    );
    expect(request.headers).toMatchObject({
      authorization: 'Bearer t0ken',
      'x-team': 'a',
      'content-type': 'application/json',
      'webhook-id': 'evt_abcdefghijklmnopqrstuv',
    });
    expect(Object.keys(request.headers).sort()).toEqual([
      'authorization',
      'content-type',
      'webhook-id',
      'webhook-signature',
      'webhook-timestamp',
      'x-team',
    ]);
    expect(request.headers['webhook-signature']).not.toContain('forged');
    expect(new Webhook(secret.text).verify(request.body, request.headers)).toBeTruthy();
    expect(request.body).not.toContain('t0ken');
  });

  it('the same event gives the same body on every attempt; only the timestamp moves', () => {
    const secret = whsec();
    const first = formatDelivery(
      promotionEvent(),
      { type: 'generic' },
      { signingSecret: secret.key },
      nowMs,
    );
    const retry = formatDelivery(
      promotionEvent(),
      { type: 'generic' },
      { signingSecret: secret.key },
      nowMs + 60_000,
    );
    expect(retry.body).toBe(first.body);
    expect(retry.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(
      Number(retry.headers['webhook-timestamp']) - Number(first.headers['webhook-timestamp']),
    ).toBe(60);
    expect(retry.headers['webhook-signature']).not.toBe(first.headers['webhook-signature']);
  });
});
