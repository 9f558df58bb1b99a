/**
 * Strategy selection: which PromotionStrategy carries out a promotion to one environment.
 * The environment's own `promotion.strategy` overrides the pipeline-wide one.
 */
import type { WebhookEndpoint } from '../../config/gateway-config.js';
import type { PipelineWriter } from '../../kube/ports.js';
import type { PipelineSpec, StrategySpec } from '../../pipeline/pipeline-resource.js';
import { notificationStrategy } from './notification.js';
import {
  pullRequestStrategy,
  type PullRequestPorts,
} from './pull-request/pull-request-strategy.js';
import type { PromotionStrategy, StrategyPreview, StrategyResult } from './strategy.js';
import type { FetchLike } from '../../outbound/fetch-like.js';
import { webhookStrategy } from './webhook.js';

/** What the strategies need from the rest of the gateway. */
export interface StrategyDeps {
  writer: PipelineWriter;
  /** The gateway's Kubernetes call timeout (ms): the notification strategy's bound. */
  callTimeoutMs: number;
  /** config.promotion.webhooks */
  webhooks: Readonly<Record<string, WebhookEndpoint>>;
  fetch?: FetchLike;
  now?: () => number;
  /** The pull-request strategy's ports; without them that strategy is not available. */
  pullRequest?: PullRequestPorts;
}

/** The strategy spec that applies to `envName`, or undefined when none is configured. */
export function strategySpecFor(spec: PipelineSpec, envName: string): StrategySpec | undefined {
  const env = spec.environments.find((e) => e.name === envName);
  return env?.promotion?.strategy ?? spec.promotion?.strategy;
}

/**
 * The strategy for promotions to `envName`, or undefined when the Pipeline configures none
 * (such a Pipeline only tracks its environments). Unsupported or ambiguous specs yield a
 * strategy that fails without retry, so the record explains why nothing happened.
 */
export function strategyFor(
  spec: PipelineSpec,
  envName: string,
  deps: StrategyDeps,
): PromotionStrategy | undefined {
  const strategy = strategySpecFor(spec, envName);
  if (strategy === undefined) return undefined;
  const kinds = (['notification', 'webhook', 'pull-request'] as const).filter(
    (kind) => strategy[kind] !== undefined,
  );
  if (kinds.length > 1) {
    return failing(
      'ambiguous',
      'AmbiguousStrategy',
      `the promotion strategy names more than one kind (${kinds.join(', ')}); choose one`,
    );
  }
  if (strategy.webhook !== undefined) {
    return webhookStrategy({
      endpoint: strategy.webhook.endpoint,
      endpoints: deps.webhooks,
      ...(deps.fetch === undefined ? {} : { fetch: deps.fetch }),
      ...(deps.now === undefined ? {} : { now: deps.now }),
    });
  }
  if (strategy.notification !== undefined)
    return notificationStrategy(deps.writer, deps.callTimeoutMs);
  const pullRequest = strategy['pull-request'];
  if (pullRequest !== undefined) {
    if (deps.pullRequest !== undefined) return pullRequestStrategy(pullRequest, deps.pullRequest);
    return failing(
      'pull-request',
      'StrategyNotSupported',
      'pull-request promotions are not enabled in this gateway; use notification or webhook',
    );
  }
  return failing('none', 'StrategyNotSupported', 'the promotion strategy names no known kind');
}

/** A strategy that always fails without retry; it never performs an action. */
function failing(name: string, reason: string, message: string): PromotionStrategy {
  const result: StrategyResult = { ok: false, reason, message, retryable: false };
  const preview: StrategyPreview = { kind: 'unavailable', reason, message };
  return {
    name,
    attemptTimeoutMs: 0,
    run: () => Promise.resolve(result),
    preview: () => Promise.resolve(preview),
  };
}
