import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PipelineView } from '../../src/reconcile/view.js';
import { jwtFixture, startGateway, testConfig } from '../support/ingress-harness.js';
import type { Gateway, JwtFixture } from '../support/ingress-harness.js';

const VIEW: PipelineView = {
  namespace: 'apps',
  name: 'podinfo',
  targets: {
    dev: [
      {
        location: { cluster: 'dev', namespace: 'apps' },
        health: 'Healthy',
        revision: '6.6.1',
        reason: 'Ready',
        message: 'ok',
      },
    ],
  },
  decisions: [
    { environment: 'dev', outcome: 'Source', reason: 'Source', message: 'first environment' },
  ],
};
const NOT_FOUND = JSON.stringify({ code: 'NotFound', message: 'No such resource.' });

describe('GET /v1/pipelines/:namespace/:name', () => {
  let gw: Gateway;
  let keys: JwtFixture;

  beforeAll(async () => {
    keys = await jwtFixture();
    gw = await startGateway({
      config: testConfig(keys.publicPem),
      views: { 'apps/podinfo': VIEW },
      held: ['apps/starting'],
    });
  });
  afterAll(async () => {
    await gw.close();
  });

  async function get(path: string, pipelines?: unknown): Promise<Response> {
    const headers: Record<string, string> = {};
    if (pipelines !== undefined) {
      headers.authorization = `Bearer ${await keys.sign({ sub: 'reader', pipelines })}`;
    }
    return fetch(`${gw.url}${path}`, { headers });
  }

  it.each([[['apps/podinfo']], [['apps/*']], [['*']]])(
    'returns the view for scope %j',
    async (scope) => {
      const res = await get('/v1/pipelines/apps/podinfo', scope);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(VIEW);
    },
  );

  it('answers 401 without a token', async () => {
    const res = await get('/v1/pipelines/apps/podinfo');
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      code: 'Unauthenticated',
      message: 'Authentication failed.',
    });
  });

  it('answers the same 404 for out-of-scope and nonexistent pipelines', async () => {
    const outOfScope = await get('/v1/pipelines/apps/podinfo', ['other/*', 'apps/podinfo-x']);
    const noClaim = await get('/v1/pipelines/apps/podinfo', 'apps/podinfo');
    const missing = await get('/v1/pipelines/apps/absent', ['*']);
    for (const res of [outOfScope, noClaim, missing]) {
      expect(res.status).toBe(404);
      expect(await res.text()).toBe(NOT_FOUND);
    }
  });

  it('asks to retry for a Pipeline it holds but has not evaluated yet, never denying it', async () => {
    const res = await get('/v1/pipelines/apps/starting', ['apps/*']);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await res.json()).toMatchObject({ code: 'NotEvaluated' });
    // Out of scope, the same Pipeline is the same 404 as any other: its existence is not told.
    const hidden = await get('/v1/pipelines/apps/starting', ['other/*']);
    expect(hidden.status).toBe(404);
    expect(await hidden.text()).toBe(NOT_FOUND);
  });
});

describe('GET /v1/pipelines/:namespace/:name on a shard', () => {
  it("answers a 404 that names the shard's Pipelines, the same for every Pipeline it lacks", async () => {
    const keys = await jwtFixture();
    const gw = await startGateway({
      config: {
        ...testConfig(keys.publicPem),
        sharding: { name: 'eu', pipelineSelector: 'promotion-gateway.io/shard=eu' },
      },
      views: { 'apps/podinfo': VIEW },
    });
    try {
      const get = async (path: string, pipelines?: unknown) =>
        fetch(`${gw.url}${path}`, {
          headers:
            pipelines === undefined
              ? {}
              : { authorization: `Bearer ${await keys.sign({ sub: 'reader', pipelines })}` },
        });
      expect((await get('/v1/pipelines/apps/podinfo', ['*'])).status).toBe(200);
      const expected = {
        code: 'NotFound',
        message:
          "No such resource in shard eu, which serves the Pipelines labelled promotion-gateway.io/shard=eu; another shard's Pipeline is answered by that shard's gateway.",
      };
      for (const res of [
        await get('/v1/pipelines/apps/absent', ['*']),
        await get('/v1/pipelines/apps/podinfo', ['other/*']),
      ]) {
        expect(res.status).toBe(404);
        expect(await res.json()).toEqual(expected);
      }
      // Authentication still comes first, and other 404s keep the registry's words.
      expect((await get('/v1/pipelines/apps/absent')).status).toBe(401);
      expect(await (await get('/v1/nothing-here', ['*'])).json()).toEqual({
        code: 'NotFound',
        message: 'No such resource.',
      });
    } finally {
      await gw.close();
    }
  });
});
