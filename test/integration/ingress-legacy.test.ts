import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/auth/hmac.js';
import { fixture, post, startGateway } from '../support/ingress-harness.js';
import type { Gateway } from '../support/ingress-harness.js';

const UNAUTHENTICATED = JSON.stringify({
  code: 'Unauthenticated',
  message: 'Authentication failed.',
});
const PIPELINE_KEY = Buffer.from('legacy-pipeline-secret');
const body = fixture('03-helmrelease-upgrade-succeeded.forwarded.json');

describe('POST /promotion/:namespace/:name/:env (legacy webhook)', () => {
  let gw: Gateway;
  const lookups: string[] = [];

  beforeAll(async () => {
    gw = await startGateway({
      legacyKeys: (id) => {
        lookups.push(id);
        const known = ['flux-system/podinfo', 'busy/p'].includes(id);
        return known ? PIPELINE_KEY : undefined;
      },
      requestPipeline: (namespace) => (namespace === 'busy' ? 'full' : 'queued'),
    });
  });
  afterAll(async () => {
    await gw.close();
  });

  it('accepts a good signature as a hint for the whole pipeline, ignoring the env segment', async () => {
    const start = gw.pipelineRequests.length;
    const res = await post(`${gw.url}/promotion/flux-system/podinfo/prod`, body, {
      'x-signature': signBody(body, PIPELINE_KEY),
    });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ accepted: true });
    expect(gw.pipelineRequests.slice(start)).toEqual([
      { namespace: 'flux-system', name: 'podinfo', source: 'legacy-webhook' },
    ]);
  });

  it('answers a bad signature, an unknown pipeline and a pipeline without key identically', async () => {
    const start = gw.pipelineRequests.length;
    const answers = await Promise.all([
      post(`${gw.url}/promotion/flux-system/podinfo/prod`, body, {
        'x-signature': signBody(body, Buffer.from('wrong')),
      }),
      post(`${gw.url}/promotion/flux-system/podinfo/prod`, body),
      post(`${gw.url}/promotion/nowhere/nothing/prod`, body, {
        'x-signature': signBody(body, PIPELINE_KEY),
      }),
      post(`${gw.url}/promotion/Not_A_Name/x/prod`, body, {
        'x-signature': signBody(body, PIPELINE_KEY),
      }),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(401);
      expect(await res.text()).toBe(UNAUTHENTICATED);
    }
    expect(gw.pipelineRequests.length).toBe(start);
    expect(lookups).not.toContain('Not_A_Name/x');
  });

  it('is never open: with no key configured even an unsigned call is refused', async () => {
    const res = await post(`${gw.url}/promotion/nowhere/nothing/prod`, '{}');
    expect(res.status).toBe(401);
  });

  it('answers 503 with Retry-After when the pipeline queue is full', async () => {
    const res = await post(`${gw.url}/promotion/busy/p/prod`, body, {
      'x-signature': signBody(body, PIPELINE_KEY),
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(await res.json()).toEqual({
      code: 'QueueFull',
      message: 'The gateway is busy; retry later.',
    });
  });
});
