import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/auth/hmac.js';
import type { EnqueueResult } from '../../src/hints/sinks.js';
import type { ObjectKey } from '../../src/pipeline/object-key.js';
import { fixture, post, PROD_KEYS, startGateway, VECTOR } from '../support/ingress-harness.js';
import type { Gateway } from '../support/ingress-harness.js';

const UNAUTHENTICATED = { code: 'Unauthenticated', message: 'Authentication failed.' };
const helmRelease = fixture('03-helmrelease-upgrade-succeeded.forwarded.json');

describe('POST /v1/events/:cluster (HMAC)', () => {
  let gw: Gateway;
  let next: EnqueueResult = 'queued';

  beforeAll(async () => {
    gw = await startGateway({ offer: () => next });
  });
  afterAll(async () => {
    await gw.close();
  });

  function offersSince(start: number): ObjectKey[] {
    return gw.offers.slice(start).map((offer) => offer.key);
  }

  it('accepts the byte-exact Flux vector with its exact headers; a GitRepository yields no hint', async () => {
    expect(VECTOR.body.at(-1)).not.toBe(0x0a);
    const start = gw.offers.length;
    const res = await post(`${gw.url}/v1/events/dev`, VECTOR.body, VECTOR.headers);
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ accepted: true, hint: 'ignored' });
    expect(offersSince(start)).toEqual([]);
  });

  it('offers a HelmRelease hint keyed on the URL cluster, signed the same way', async () => {
    const start = gw.offers.length;
    const res = await post(`${gw.url}/v1/events/dev`, helmRelease, {
      'x-signature': signBody(helmRelease, VECTOR.key),
      'gotk-component': 'helm-controller',
    });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ accepted: true, hint: 'queued' });
    expect(offersSince(start)).toEqual([
      {
        cluster: 'dev',
        group: 'helm.toolkit.fluxcd.io',
        kind: 'HelmRelease',
        namespace: 'apps',
        name: 'podinfo',
      },
    ]);
    expect(gw.offers.at(-1)?.source).toBe('flux-event');
  });

  it('maps a Kustomization to kustomize.toolkit.fluxcd.io', async () => {
    const body = fixture('06-kustomization-reconciliation-succeeded.forwarded.json');
    const start = gw.offers.length;
    const res = await post(`${gw.url}/v1/events/dev`, body, {
      'x-signature': signBody(body, VECTOR.key),
    });
    expect(res.status).toBe(202);
    expect(offersSince(start)).toEqual([
      {
        cluster: 'dev',
        group: 'kustomize.toolkit.fluxcd.io',
        kind: 'Kustomization',
        namespace: 'flux-system',
        name: 'podinfo',
      },
    ]);
  });

  it.each(['sha384', 'sha512'] as const)('accepts %s signatures', async (algorithm) => {
    const res = await post(`${gw.url}/v1/events/dev`, helmRelease, {
      'x-signature': signBody(helmRelease, VECTOR.key, algorithm),
    });
    expect(res.status).toBe(202);
  });

  it('accepts either of two rotating keys', async () => {
    for (const key of PROD_KEYS) {
      const start = gw.offers.length;
      const res = await post(`${gw.url}/v1/events/prod`, helmRelease, {
        'x-signature': signBody(helmRelease, key),
      });
      expect(res.status).toBe(202);
      expect(offersSince(start).map((k) => k.cluster)).toEqual(['prod']);
    }
  });

  it('rejects the vector with one altered byte', async () => {
    const altered = Buffer.from(VECTOR.body);
    altered[altered.indexOf('webapp')] = 'W'.charCodeAt(0);
    const res = await post(`${gw.url}/v1/events/dev`, altered, VECTOR.headers);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(UNAUTHENTICATED);
  });

  it("rejects dev's key posting to prod and never offers", async () => {
    const start = gw.offers.length;
    const res = await post(`${gw.url}/v1/events/prod`, helmRelease, {
      'x-signature': signBody(helmRelease, VECTOR.key),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(UNAUTHENTICATED);
    expect(offersSince(start)).toEqual([]);
  });

  it('answers an unknown cluster, a missing credential and a malformed signature identically', async () => {
    const signed = { 'x-signature': signBody(helmRelease, VECTOR.key) };
    const answers = await Promise.all([
      post(`${gw.url}/v1/events/nowhere`, helmRelease, signed),
      post(`${gw.url}/v1/events/dev`, helmRelease),
      post(`${gw.url}/v1/events/dev`, helmRelease, { 'x-signature': 'sha256=abc' }),
      post(`${gw.url}/v1/events/dev`, helmRelease, { 'x-signature': 'md5=00' }),
      post(`${gw.url}/v1/events/dev`, helmRelease, { authorization: 'Bearer not.a.jwt' }),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(401);
      expect(await res.text()).toBe(JSON.stringify(UNAUTHENTICATED));
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    }
  });

  it('authenticates before validating: a schema violation from a stranger is a 401', async () => {
    const res = await post(`${gw.url}/v1/events/dev`, '{"involvedObject":{}}');
    expect(res.status).toBe(401);
  });

  it('names the offending field of an authenticated schema violation', async () => {
    const body = Buffer.from(
      JSON.stringify({ involvedObject: { kind: 'HelmRelease', name: 'x' }, severity: 'info' }),
    );
    const res = await post(`${gw.url}/v1/events/dev`, body, {
      'x-signature': signBody(body, VECTOR.key),
    });
    expect(res.status).toBe(400);
    const answer = (await res.json()) as { code: string; message: string };
    expect(answer.code).toBe('InvalidBody');
    expect(answer.message).toContain('/involvedObject');
    expect(answer.message).toContain('namespace');
  });

  it('rejects a bad severity as InvalidBody', async () => {
    const body = Buffer.from(
      JSON.stringify({
        involvedObject: { kind: 'HelmRelease', name: 'x', namespace: 'y' },
        severity: 'fatal',
      }),
    );
    const res = await post(`${gw.url}/v1/events/dev`, body, {
      'x-signature': signBody(body, VECTOR.key),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain('/severity');
  });

  it('checks types as the schema says: a number is no name, nothing is coerced', async () => {
    const offers = gw.offers.length;
    const body = Buffer.from(
      JSON.stringify({ involvedObject: { kind: 'HelmRelease', name: 7, namespace: 'y' } }),
    );
    const res = await post(`${gw.url}/v1/events/dev`, body, {
      'x-signature': signBody(body, VECTOR.key),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain('/involvedObject/name');
    expect(gw.offers.length).toBe(offers);
  });

  it('answers 400 InvalidJson for malformed JSON and for prototype poisoning', async () => {
    for (const text of [
      '{"involvedObject":',
      '{"__proto__":{"polluted":true}}',
      '{"a":{"constructor":{"prototype":{}}}}',
      '',
    ]) {
      const res = await post(`${gw.url}/v1/events/dev`, text, {
        'x-signature': signBody(Buffer.from(text), VECTOR.key),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        code: 'InvalidJson',
        message: 'The request body is not valid JSON.',
      });
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('answers 413 PayloadTooLarge above the body limit', async () => {
    const big = Buffer.from(
      JSON.stringify({
        involvedObject: { kind: 'K', name: 'n', namespace: 'x' },
        message: 'x'.repeat(70_000),
      }),
    );
    const res = await post(`${gw.url}/v1/events/dev`, big, {
      'x-signature': signBody(big, VECTOR.key),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      code: 'PayloadTooLarge',
      message: 'The request body is too large.',
    });
  });

  it('answers 415 for non-JSON content types and non-UTF-8 charsets', async () => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=latin1',
    ]) {
      const res = await post(`${gw.url}/v1/events/dev`, helmRelease, {
        'content-type': type,
        'x-signature': signBody(helmRelease, VECTOR.key),
      });
      expect(res.status).toBe(415);
      expect(await res.json()).toEqual({
        code: 'UnsupportedMediaType',
        message: 'This content type is not accepted here.',
      });
    }
  });

  it('answers 415 when the content type is missing', async () => {
    const res = await fetch(`${gw.url}/v1/events/dev`, {
      method: 'POST',
      body: new Uint8Array(helmRelease),
      headers: { 'x-signature': signBody(helmRelease, VECTOR.key) },
    });
    expect(res.status).toBe(415);
  });

  it('accepts application/json; charset=utf-8', async () => {
    const res = await post(`${gw.url}/v1/events/dev`, helmRelease, {
      'content-type': 'application/json; charset=utf-8',
      'x-signature': signBody(helmRelease, VECTOR.key),
    });
    expect(res.status).toBe(202);
  });

  it('answers 503 QueueFull with Retry-After when the queue is full', async () => {
    next = 'full';
    try {
      const res = await post(`${gw.url}/v1/events/dev`, helmRelease, {
        'x-signature': signBody(helmRelease, VECTOR.key),
      });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(await res.json()).toEqual({
        code: 'QueueFull',
        message: 'The gateway is busy; retry later.',
      });
    } finally {
      next = 'queued';
    }
  });

  it('answers an unreferenced object exactly like a referenced one', async () => {
    const sig = { 'x-signature': signBody(helmRelease, VECTOR.key) };
    next = 'dropped-unreferenced';
    const dropped = await post(`${gw.url}/v1/events/dev`, helmRelease, sig);
    next = 'queued';
    const queued = await post(`${gw.url}/v1/events/dev`, helmRelease, sig);
    expect(dropped.status).toBe(202);
    expect(await dropped.text()).toBe(await queued.text());
  });

  it('ignores a HelmRelease whose apiVersion names another group', async () => {
    const body = Buffer.from(
      JSON.stringify({
        involvedObject: {
          kind: 'HelmRelease',
          apiVersion: 'evil.example.com/v1',
          name: 'x',
          namespace: 'y',
        },
      }),
    );
    const start = gw.offers.length;
    const res = await post(`${gw.url}/v1/events/dev`, body, {
      'x-signature': signBody(body, VECTOR.key),
    });
    expect(await res.json()).toEqual({ accepted: true, hint: 'ignored' });
    expect(offersSince(start)).toEqual([]);
  });
});
