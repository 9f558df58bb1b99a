import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/auth/hmac.js';
import {
  fixture,
  jwtFixture,
  post,
  startGateway,
  testConfig,
  VECTOR,
} from '../support/ingress-harness.js';
import type { Gateway, JwtFixture } from '../support/ingress-harness.js';

describe('logging never reveals credentials', () => {
  let gw: Gateway;
  let keys: JwtFixture;
  const legacyKey = Buffer.from('legacy-key-value-zzz');

  beforeAll(async () => {
    keys = await jwtFixture();
    gw = await startGateway({
      config: testConfig(keys.publicPem),
      legacyKeys: () => legacyKey,
    });
  });
  afterAll(async () => {
    await gw.close();
  });

  it('at debug level, across accepted and rejected requests of every kind', async () => {
    const body = fixture('03-helmrelease-upgrade-succeeded.forwarded.json');
    const signature = signBody(body, VECTOR.key);
    const badSignature = signBody(body, Buffer.from('nope'));
    const token = await keys.sign({ sub: 'flux-dev', pipelines: ['*'] });
    const legacySignature = signBody(body, legacyKey);

    const answers = [
      await post(`${gw.url}/v1/events/dev`, body, {
        'x-signature': signature,
        cookie: 'session=c00kie-value',
      }),
      await post(`${gw.url}/v1/events/dev`, body, { 'x-signature': badSignature }),
      await post(`${gw.url}/v1/events/dev`, body, { authorization: `Bearer ${token}` }),
      await post(`${gw.url}/v1/events/prod`, body, { authorization: `Bearer ${token}` }),
      await post(`${gw.url}/promotion/apps/podinfo/prod`, body, { 'x-signature': legacySignature }),
      await fetch(`${gw.url}/v1/pipelines/apps/podinfo`, {
        headers: { authorization: `Bearer ${token}` },
      }),
    ];
    expect(answers.map((res) => res.status)).toEqual([202, 401, 202, 401, 202, 404]);

    const output = gw.logs.join('');
    expect(output).toContain('"level":20');
    expect(output).toContain('flux event accepted');
    for (const secret of [
      signature.slice(7),
      badSignature.slice(7),
      legacySignature.slice(7),
      token,
      token.split('.')[2]!,
      VECTOR.key.toString('utf8'),
      legacyKey.toString('utf8'),
      'c00kie-value',
    ]) {
      expect(output).not.toContain(secret);
    }
  });
});
