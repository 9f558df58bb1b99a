/**
 * What every notification fact is built from: the fact's shape, one environment's context and the
 * fields a fact of it starts with (facts.ts, history-facts.ts). Pure.
 */
import type {
  EnvironmentStatus,
  Pipeline,
  PipelineEnvironment,
} from '../pipeline/pipeline-resource.js';
import { parseTimestamp } from '../time/kube-time.js';
import type {
  NotificationEvent,
  NotificationTarget,
  NotificationType,
} from './notification-event.js';

/** An event before it is addressed to an alert: `subject` tells apart facts of one type. */
export interface NotificationFact extends Omit<NotificationEvent, 'id'> {
  /** A principal, a target, a condition's start: '' when the type says it all. */
  subject: string;
  /** `time` in ms since the epoch. */
  at: number;
}

/** One environment of a Pipeline as the facts about it read it. */
export interface EnvContext {
  pipeline: Pipeline;
  env: PipelineEnvironment;
  status: EnvironmentStatus;
  targets: NotificationTarget[];
}

/** The fields a fact of `type` about `revision` at `time` starts with; undefined for an unreadable time. */
export function base(
  ctx: EnvContext,
  type: NotificationType,
  revision: string,
  time: string,
): Omit<NotificationFact, 'reason' | 'message' | 'severity' | 'subject'> | undefined {
  const at = parseTimestamp(time);
  if (at === undefined) return undefined;
  const { namespace, name } = ctx.pipeline.metadata;
  return {
    type,
    time: new Date(at).toISOString(),
    at,
    pipeline: { namespace, name },
    environment: ctx.env.name,
    revision,
    targets: ctx.targets,
  };
}
