/**
 * One entry of a PromotionAlert's `status.streams`: the delivery cursor of one (Pipeline,
 * environment) stream, whose shape the outbox owns (src/notify/outbox.ts StreamState). The CRD
 * fixes only `pipeline` and `environment` and keeps every other field as written
 * (`x-kubernetes-preserve-unknown-fields`), so the outbox can refine it without a CRD change.
 */
export type { StreamState as StreamRecord } from './outbox.js';
