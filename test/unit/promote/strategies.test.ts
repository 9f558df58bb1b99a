import { describe, expect, it } from 'vitest';
import { notificationStrategy } from '../../../src/promote/strategies/notification.js';
import { strategyFor } from '../../../src/promote/strategies/select.js';
import type { StrategyContext } from '../../../src/promote/strategies/strategy.js';
import type { FetchLike } from '../../../src/outbound/fetch-like.js';
import { webhookStrategy } from '../../../src/promote/strategies/webhook.js';
import type { PipelineSpec } from '../../../src/pipeline/pipeline-resource.js';
import { FakePipelineWriter } from '../../support/fake-pipeline-writer.js';
import { samplePipeline, T0 } from '../../support/pipeline-fixtures.js';

const ctx: StrategyContext = {
  pipeline: samplePipeline(),
  environment: 'staging',
  revision: '1.1.0',
  attempt: 1,
};

describe('notification strategy', () => {
  it('records the Promote event pipeline-controller recorded', async () => {
    const writer = new FakePipelineWriter();
    const result = await notificationStrategy(writer, 10_000).run(ctx);
    expect(result.ok).toBe(true);
    expect(writer.events).toStrictEqual([
      {
        involvedObject: {
          apiVersion: 'pipelines.weave.works/v1alpha1',
          kind: 'Pipeline',
          namespace: 'flux-system',
          name: 'podinfo',
          uid: 'uid-1',
        },
        type: 'Normal',
        reason: 'Promote',
        message: 'Promote pipeline flux-system/podinfo to staging with version 1.1.0',
        annotations: { environment: 'staging', version: '1.1.0' },
      },
    ]);
  });

  it('reports a failed event write as retryable, without the error text', async () => {
    const writer = new FakePipelineWriter();
    writer.eventError = new Error('Authorization: Bearer abc');
    const result = await notificationStrategy(writer, 10_000).run(ctx);
    expect(result).toStrictEqual({
      ok: false,
      reason: 'EventNotRecorded',
      message: 'the Promote event could not be recorded',
      retryable: true,
    });
  });
});

describe('strategyFor', () => {
  const writer = new FakePipelineWriter();
  const spec = (over: Partial<PipelineSpec> = {}): PipelineSpec => ({
    ...samplePipeline().spec,
    ...over,
  });
  const deps = { writer, webhooks: {}, callTimeoutMs: 10_000 };

  it('uses the environment strategy over the pipeline one', () => {
    const s = spec();
    s.environments[1]!.promotion = { strategy: { webhook: { endpoint: 'ci' } } };
    expect(strategyFor(s, 'staging', deps)?.name).toBe('webhook');
    expect(strategyFor(s, 'prod', deps)?.name).toBe('notification');
  });

  it('returns undefined when no strategy is configured', () => {
    const s = spec();
    delete s.promotion;
    expect(strategyFor(s, 'staging', deps)).toBeUndefined();
  });

  it('fails pull-request promotions without retry where the gateway has no pull-request ports', async () => {
    const s = spec({
      promotion: {
        strategy: {
          'pull-request': {
            type: 'github',
            url: 'https://github.com/o/r',
            baseBranch: 'main',
            secretRef: { name: 's' },
          },
        },
      },
    });
    const result = await strategyFor(s, 'staging', deps)!.run(ctx);
    expect(result).toMatchObject({ ok: false, reason: 'StrategyNotSupported', retryable: false });
    expect(result.message).toMatch(/not enabled/);
  });

  it('fails an ambiguous strategy without retry', async () => {
    const s = spec({ promotion: { strategy: { notification: {}, webhook: { endpoint: 'ci' } } } });
    const result = await strategyFor(s, 'staging', deps)!.run(ctx);
    expect(result).toMatchObject({ ok: false, reason: 'AmbiguousStrategy', retryable: false });
  });

  it('fails an unknown webhook endpoint without retry and without calling out', async () => {
    let calls = 0;
    const fetch: FetchLike = () => {
      calls++;
      return Promise.resolve(new Response(null, { status: 204 }));
    };
    const s = spec({ promotion: { strategy: { webhook: { endpoint: 'nope' } } } });
    const result = await strategyFor(s, 'staging', { ...deps, fetch })!.run(ctx);
    expect(result).toMatchObject({ ok: false, reason: 'UnknownWebhookEndpoint', retryable: false });
    expect(calls).toBe(0);
  });
});

describe('webhook strategy classification (injected fetch)', () => {
  const secret = Buffer.from('s3cr3t-signing-key');
  const url = 'https://user:pw@hooks.example/promote?token=t0ken';
  const endpoints = { ci: { url, secret, timeoutMs: 1000 } };
  const run = (fetch: FetchLike) =>
    webhookStrategy({ endpoint: 'ci', endpoints, fetch, now: () => T0 }).run(ctx);
  const answering =
    (status: number, body?: string): FetchLike =>
    () =>
      Promise.resolve(new Response(body ?? null, { status }));

  it.each([
    [200, true, undefined],
    [202, true, undefined],
    [400, false, false],
    [404, false, false],
    [408, false, true],
    [429, false, true],
    [500, false, true],
    [503, false, true],
  ])('HTTP %i -> ok %s, retryable %s', async (status, ok, retryable) => {
    const result = await run(answering(status, 'response body with s3cr3t-signing-key'));
    expect(result.ok).toBe(ok);
    if (!result.ok) {
      expect(result.retryable).toBe(retryable);
      expect(result.message).toBe(`webhook endpoint ci answered HTTP ${status}`);
    }
    expect(result.message).not.toMatch(/response body|s3cr3t|t0ken|pw@/);
  });

  it('does not follow redirects and fails them without retry', async () => {
    let init: RequestInit | undefined;
    const result = await run((_, i) => {
      init = i;
      return Promise.resolve(
        new Response(null, { status: 302, headers: { location: 'https://evil' } }),
      );
    });
    expect(init?.redirect).toBe('manual');
    expect(result).toMatchObject({ ok: false, reason: 'WebhookRedirected', retryable: false });
  });

  it('sends one id per delivery: retries share it, a drift correction gets its own', async () => {
    const ids: string[] = [];
    const seen: FetchLike = (_, init) => {
      ids.push(new Headers(init.headers).get('webhook-id') ?? '');
      return Promise.resolve(new Response(null, { status: 204 }));
    };
    const strategy = webhookStrategy({ endpoint: 'ci', endpoints, fetch: seen, now: () => T0 });
    await strategy.run(ctx);
    await strategy.run({ ...ctx, attempt: 2 });
    await strategy.run({ ...ctx, attempt: 3, redelivery: 1 });
    await strategy.run({ ...ctx, attempt: 4, redelivery: 1 });
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).toBe(ids[3]);
    expect(ids[2]).not.toBe(ids[0]);
    expect(strategy.attemptTimeoutMs).toBe(1000);
  });

  it('stops the delivery when the attempt reaches its deadline', async () => {
    const deadline = new AbortController();
    const hanging: FetchLike = (_, init) =>
      new Promise((_resolve, reject) => {
        init.signal?.addEventListener('abort', () => {
          reject(new DOMException('aborted', 'AbortError'));
        });
        deadline.abort();
      });
    const result = await webhookStrategy({ endpoint: 'ci', endpoints, fetch: hanging }).run({
      ...ctx,
      signal: deadline.signal,
    });
    expect(result).toMatchObject({ ok: false, reason: 'WebhookTimeout', retryable: true });
  });

  it('reports network errors as retryable, without their text', async () => {
    const result = await run(() => Promise.reject(new TypeError(`fetch failed ${url}`)));
    expect(result).toStrictEqual({
      ok: false,
      reason: 'WebhookUnreachable',
      message: 'webhook endpoint ci could not be reached',
      retryable: true,
    });
  });

  it('reports an aborted request as a retryable timeout', async () => {
    const result = await run(() => Promise.reject(new DOMException('timed out', 'TimeoutError')));
    expect(result).toMatchObject({ ok: false, reason: 'WebhookTimeout', retryable: true });
  });
});
