/**
 * The webhook strategy: a signed POST to an endpoint named in the gateway config, following
 * Standard Webhooks (webhook-id / webhook-timestamp / webhook-signature). Messages carry the
 * endpoint's name and the HTTP status only: never its URL, secret or response body.
 */
import { createHash } from 'node:crypto';
import type { WebhookEndpoint } from '../../config/gateway-config.js';
import { standardWebhookHeaders } from '../../outbound/webhook-signing.js';
import { rfc3339 } from '../../time/kube-time.js';
import type { FetchLike } from '../../outbound/fetch-like.js';
import type {
  PromotionStrategy,
  StrategyContext,
  StrategyPreview,
  StrategyResult,
} from './strategy.js';

/** What a webhook strategy needs: the endpoint's name, the configured endpoints, fetch, a clock. */
export interface WebhookStrategyOptions {
  endpoint: string;
  endpoints: Readonly<Record<string, WebhookEndpoint>>;
  fetch?: FetchLike;
  now?: () => number;
}

/** The JSON body sent to the endpoint. */
export interface WebhookPayload {
  pipeline: { namespace: string; name: string };
  environment: string;
  revision: string;
  attempt: number;
  timestamp: string;
  /** Set for a rollback: the revision rolled back (`revision` is the earlier one it goes to). */
  rollback?: { from: string };
}

/** A strategy that POSTs the promotion to the named endpoint. */
export function webhookStrategy(options: WebhookStrategyOptions): PromotionStrategy {
  const send = options.fetch ?? ((url, init) => fetch(url, init));
  const now = options.now ?? Date.now;
  const endpoint = Object.hasOwn(options.endpoints, options.endpoint)
    ? options.endpoints[options.endpoint]
    : undefined;
  return {
    name: 'webhook',
    // One POST, aborted after the endpoint's timeout and never retried within the attempt.
    attemptTimeoutMs: endpoint?.timeoutMs ?? 0,
    run: (ctx) => deliver(options.endpoint, options.endpoints, send, now(), ctx),
    preview: (ctx) => Promise.resolve(previewOf(options, now(), ctx)),
  };
}

/** The body members set when the request is sent, not by the promotion: a preview's digest leaves them out. */
export const VARYING_MEMBERS: readonly string[] = ['attempt', 'timestamp'];

/** The exact JSON body a promotion of `ctx` posts at `nowMs`: what `run` sends and a preview shows. */
export function webhookBody(ctx: StrategyContext, nowMs: number): string {
  const { namespace, name } = ctx.pipeline.metadata;
  const payload: WebhookPayload = {
    pipeline: { namespace, name },
    environment: ctx.environment,
    revision: ctx.revision,
    attempt: ctx.attempt,
    timestamp: rfc3339(nowMs),
    ...(ctx.rollback === undefined ? {} : { rollback: { from: ctx.rollback.from } }),
  };
  return JSON.stringify(payload);
}

function previewOf(
  options: WebhookStrategyOptions,
  nowMs: number,
  ctx: StrategyContext,
): StrategyPreview {
  const { endpoint } = options;
  if (!Object.hasOwn(options.endpoints, endpoint)) {
    const message = `webhook endpoint ${endpoint} is not configured in the gateway`;
    return { kind: 'unavailable', reason: 'UnknownWebhookEndpoint', message };
  }
  return { kind: 'webhook', endpoint, body: webhookBody(ctx, nowMs), varies: [...VARYING_MEMBERS] };
}

/**
 * Stable per {pipeline, environment, revision, kind, redelivery}: retries of one promotion share
 * it, so the receiver can de-duplicate; another revision, or a drift correction delivering the
 * same revision again, gets another id.
 */
export function webhookId(
  pipeline: { namespace: string; name: string },
  environment: string,
  revision: string,
  kind = 'promote',
  redelivery = 0,
): string {
  const parts = [pipeline.namespace, pipeline.name, environment, revision, kind];
  // The first delivery's id is the one the gateway has always sent for the revision.
  const key = JSON.stringify(redelivery > 0 ? [...parts, redelivery] : parts);
  return `msg_${createHash('sha256').update(key).digest('base64url')}`;
}

async function deliver(
  name: string,
  endpoints: Readonly<Record<string, WebhookEndpoint>>,
  send: FetchLike,
  nowMs: number,
  ctx: StrategyContext,
): Promise<StrategyResult> {
  const endpoint = Object.hasOwn(endpoints, name) ? endpoints[name] : undefined;
  if (endpoint === undefined) {
    return {
      ok: false,
      reason: 'UnknownWebhookEndpoint',
      message: `webhook endpoint ${name} is not configured in the gateway`,
      retryable: false,
    };
  }
  const request = buildRequest(endpoint, nowMs, ctx);
  let response: Response;
  try {
    response = await send(endpoint.url, request);
  } catch (err) {
    return transportFailure(name, err);
  }
  // The body is never read: it is not ours to log, and cancelling frees the connection.
  await response.body?.cancel().catch(() => undefined);
  return classifyStatus(name, response.status, ctx);
}

function buildRequest(endpoint: WebhookEndpoint, nowMs: number, ctx: StrategyContext): RequestInit {
  const { namespace, name } = ctx.pipeline.metadata;
  const body = webhookBody(ctx, nowMs);
  const id = webhookId(
    { namespace, name },
    ctx.environment,
    ctx.revision,
    // A rollback to a revision delivered before is another message than that delivery.
    ctx.rollback === undefined ? 'promote' : `rollback:${ctx.rollback.from}`,
    ctx.redelivery,
  );
  // The signing is the notifications' (outbound/webhook-signing.ts): one implementation of the scheme.
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...standardWebhookHeaders(id, nowMs, body, { signingSecret: endpoint.secret }),
  };
  return {
    method: 'POST',
    headers,
    body,
    // A redirect would re-send the signed payload somewhere the config never named.
    redirect: 'manual',
    signal:
      ctx.signal === undefined
        ? AbortSignal.timeout(endpoint.timeoutMs)
        : AbortSignal.any([AbortSignal.timeout(endpoint.timeoutMs), ctx.signal]),
  };
}

function classifyStatus(name: string, status: number, ctx: StrategyContext): StrategyResult {
  if (status >= 200 && status < 300) {
    const { namespace, name: pipeline } = ctx.pipeline.metadata;
    return {
      ok: true,
      message: `webhook endpoint ${name} accepted the promotion of ${namespace}/${pipeline} to ${ctx.environment} at ${ctx.revision} (HTTP ${status})`,
    };
  }
  const retryable = status === 408 || status === 429 || status >= 500;
  const reason = status >= 300 && status < 400 ? 'WebhookRedirected' : 'WebhookRejected';
  return {
    ok: false,
    reason,
    message: `webhook endpoint ${name} answered HTTP ${status}`,
    retryable,
  };
}

function transportFailure(name: string, err: unknown): StrategyResult {
  const errName = err instanceof Error ? err.name : '';
  if (errName === 'TimeoutError' || errName === 'AbortError') {
    return {
      ok: false,
      reason: 'WebhookTimeout',
      message: `webhook endpoint ${name} did not answer in time`,
      retryable: true,
    };
  }
  // Transport errors can quote the URL (and any credentials in it), so none of their text is kept.
  return {
    ok: false,
    reason: 'WebhookUnreachable',
    message: `webhook endpoint ${name} could not be reached`,
    retryable: true,
  };
}
