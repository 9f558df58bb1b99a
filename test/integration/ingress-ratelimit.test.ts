import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/auth/hmac.js';
import {
  fixture,
  post,
  PROD_KEYS,
  startGateway,
  testConfig,
  VECTOR,
} from '../support/ingress-harness.js';
import type { Gateway } from '../support/ingress-harness.js';

const LIMIT = 3;
const body = fixture('03-helmrelease-upgrade-succeeded.forwarded.json');

describe('rate limiting', () => {
  let gw: Gateway;

  beforeAll(async () => {
    gw = await startGateway({
      config: { ...testConfig(), rateLimit: { max: LIMIT, timeWindowMs: 600_000 } },
    });
  });
  afterAll(async () => {
    await gw.close();
  });

  const asDev = () =>
    post(`${gw.url}/v1/events/dev`, body, { 'x-signature': signBody(body, VECTOR.key) });

  it('answers 429 RateLimited with Retry-After once a subject exceeds the limit', async () => {
    for (let i = 0; i < LIMIT; i++) expect((await asDev()).status).toBe(202);
    const offersBefore = gw.offers.length;
    const limited = await asDev();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(await limited.json()).toEqual({
      code: 'RateLimited',
      message: 'Too many requests; retry later.',
    });
    expect(gw.offers.length).toBe(offersBefore);
  });

  it('keys authenticated callers by subject: another cluster from the same IP is unaffected', async () => {
    const res = await post(`${gw.url}/v1/events/prod`, body, {
      'x-signature': signBody(body, PROD_KEYS[0]!),
    });
    expect(res.status).toBe(202);
  });

  it('throttles failed authentication by IP', async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i++)
      statuses.push((await post(`${gw.url}/v1/events/dev`, body)).status);
    expect(statuses).toEqual([...Array<number>(LIMIT).fill(401), 429]);
  });

  it('never limits health, readiness or metrics', async () => {
    for (let i = 0; i < LIMIT * 3; i++) {
      for (const path of ['/healthz', '/readyz', '/metrics']) {
        expect((await fetch(`${gw.url}${path}`)).status).toBe(200);
      }
    }
  });
});
