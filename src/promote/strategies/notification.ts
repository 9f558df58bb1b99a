/**
 * The notification strategy, as weave's pipeline-controller did it: a Kubernetes Event on the
 * Pipeline that other tooling (e.g. a Flux Alert) turns into an action.
 */
import type { EventRecord, PipelineWriter } from '../../kube/ports.js';
import type { PromotionStrategy, StrategyContext, StrategyResult } from './strategy.js';
import { involvedObjectOf } from '../../pipeline/involved-object.js';

/** The Event reason pipeline-controller used (`PromoteReason`). */
export const PromoteEventReason = 'Promote';

/** Event annotation keys, exactly as pipeline-controller passed them to AnnotatedEventf. */
export const EventAnnotations = { environment: 'environment', version: 'version' } as const;

/**
 * A strategy that records a Normal `Promote` Event on the Pipeline through `writer`, whose one
 * Kubernetes call is bounded by `callTimeoutMs` (the gateway's Kubernetes call timeout).
 */
export function notificationStrategy(
  writer: PipelineWriter,
  callTimeoutMs: number,
): PromotionStrategy {
  return {
    name: 'notification',
    attemptTimeoutMs: callTimeoutMs,
    run: (ctx) => emitPromoteEvent(writer, ctx),
    preview: (ctx) => Promise.resolve({ kind: 'notification', event: promoteEvent(ctx) }),
  };
}

/** The Event a promotion of `ctx` records: what `run` sends and a preview shows. */
export function promoteEvent(
  ctx: Pick<StrategyContext, 'pipeline' | 'environment' | 'revision' | 'rollback'>,
): EventRecord {
  const { metadata } = ctx.pipeline;
  const back = ctx.rollback === undefined ? '' : ` (a rollback from ${ctx.rollback.from})`;
  const message = `Promote pipeline ${metadata.namespace}/${metadata.name} to ${ctx.environment} with version ${ctx.revision}${back}`;
  return {
    involvedObject: involvedObjectOf(ctx.pipeline),
    type: 'Normal',
    reason: PromoteEventReason,
    message,
    annotations: {
      [EventAnnotations.environment]: ctx.environment,
      [EventAnnotations.version]: ctx.revision,
    },
  };
}

async function emitPromoteEvent(
  writer: PipelineWriter,
  ctx: StrategyContext,
): Promise<StrategyResult> {
  const event = promoteEvent(ctx);
  const { message } = event;
  // Past its deadline the attempt may already be resolved by another replica: nothing is sent.
  if (ctx.signal?.aborted === true) return deadlinePassed();
  try {
    await writer.emitEvent(event);
  } catch {
    // The API error may quote the request; a fixed message keeps the record clean.
    return {
      ok: false,
      reason: 'EventNotRecorded',
      message: 'the Promote event could not be recorded',
      retryable: true,
    };
  }
  return { ok: true, message: `Recorded event: ${message}` };
}

function deadlinePassed(): StrategyResult {
  return {
    ok: false,
    reason: 'AttemptDeadlinePassed',
    message: 'the attempt had no time left before its deadline; nothing was sent',
    retryable: true,
  };
}
