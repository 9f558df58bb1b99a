/**
 * One entry of a PromotionAlert's `status.streams`: the delivery cursor of one (Pipeline,
 * environment) stream, whose shape the outbox owns (src/notify/outbox.ts StreamState). The CRD
 * fixes only `pipeline` and `environment` and keeps every other field as written
 * (`x-kubernetes-preserve-unknown-fields`), so the outbox can refine it without a CRD change.
 */
import type { StreamState } from './outbox.js';

export type { StreamState as StreamRecord } from './outbox.js';

/**
 * A stored stream as the outbox reads it, or undefined when it is not one (status is written
 * by the gateway only, but a hand edit must never stop the engine: a bad cursor starts again
 * from the alert's floor, which can only repeat an event, never lose one).
 */
export function readStream(raw: unknown): StreamState | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const s = raw as Partial<Record<keyof StreamState, unknown>>;
  if (typeof s.pipeline !== 'string' || typeof s.environment !== 'string') return undefined;
  if (typeof s.cursor !== 'number' || !Array.isArray(s.done)) return undefined;
  const done = (s.done as unknown[]).filter(
    (d): d is { id: string; at: number } =>
      typeof (d as { id?: unknown }).id === 'string' &&
      typeof (d as { at?: unknown }).at === 'number',
  );
  const head = s.head as StreamState['head'] | undefined;
  const headOk =
    head !== undefined &&
    typeof head.id === 'string' &&
    typeof head.attempts === 'number' &&
    typeof head.firstAttempt === 'number' &&
    typeof head.next === 'number';
  return {
    pipeline: s.pipeline,
    environment: s.environment,
    ...(s.kind === 'train' ? { kind: 'train' as const } : {}),
    cursor: s.cursor,
    done,
    ...(headOk ? { head } : {}),
  };
}
