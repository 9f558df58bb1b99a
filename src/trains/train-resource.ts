/**
 * The PromotionTrain custom resource (pipelines.promotion-gateway.dev/v1alpha1), as the CRD in
 * manifests/crd and schemas/promotion-train.schema.json define it: the types of the declaration
 * in src/shapes both are generated from (docs/policy.md, "Release trains").
 */
import type { Static } from 'typebox';
import type {
  ObservedCombinationSchema,
  TrainEnvironmentSchema,
  TrainMemberSchema,
  TrainReleaseSchema,
  TrainSpecSchema,
  TrainStatusSchema,
  TrainOutboxEventSchema,
} from '../shapes/promotion-train.js';

/** apiVersion of every PromotionTrain. */
export const TRAIN_API_VERSION = 'pipelines.promotion-gateway.dev/v1alpha1';
/** kind of every PromotionTrain. */
export const TRAIN_KIND = 'PromotionTrain';

/** PromotionTrain .spec. */
export type TrainSpec = Static<typeof TrainSpecSchema>;
/** spec.members[i]: a member Pipeline by name and the members it is promoted after. */
export type TrainMember = Static<typeof TrainMemberSchema>;
/** status.environments[i].observed[j]: a combination verified together upstream. */
export type ObservedCombination = Static<typeof ObservedCombinationSchema>;
/** status.environments[i].release: the combination being (or last) promoted there. */
export type TrainRelease = Static<typeof TrainReleaseSchema>;
/** A release's state: Waiting, Promoting, Succeeded or Failed. */
export type ReleaseState = TrainRelease['state'];
/** status.environments[i]. */
export type TrainEnvironment = Static<typeof TrainEnvironmentSchema>;
/** status.outbox[i]: a notification event the train owes, recorded with its whole body. */
export type TrainOutboxEvent = Static<typeof TrainOutboxEventSchema>;
/** PromotionTrain .status; written only by the train reconciler on the resync Lease holder. */
export type TrainStatus = Static<typeof TrainStatusSchema>;

/** The metadata of a PromotionTrain the gateway reads. */
export interface TrainMeta {
  name: string;
  namespace: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  [field: string]: unknown;
}

/** A PromotionTrain whose whole object matched the schema and the checks (train-check.ts). */
export interface PromotionTrain {
  apiVersion: typeof TRAIN_API_VERSION;
  kind: typeof TRAIN_KIND;
  metadata: TrainMeta;
  spec: TrainSpec;
  status?: TrainStatus;
}

/** A stored PromotionTrain whose spec was not checked (or did not pass). */
export interface UncheckedTrain {
  apiVersion: typeof TRAIN_API_VERSION;
  kind: typeof TRAIN_KIND;
  metadata: TrainMeta;
  spec?: unknown;
  status?: TrainStatus;
}

/**
 * The object as a stored PromotionTrain (apiVersion, kind, namespace and name), its spec not yet
 * checked; undefined for anything else. The object is not copied.
 */
export function asUncheckedTrain(object: unknown): UncheckedTrain | undefined {
  const candidate = object as Partial<UncheckedTrain> | null;
  if (candidate?.apiVersion !== TRAIN_API_VERSION || candidate.kind !== TRAIN_KIND)
    return undefined;
  const { namespace, name } = candidate.metadata ?? {};
  if (typeof namespace !== 'string' || namespace === '' || typeof name !== 'string' || name === '')
    return undefined;
  return candidate as UncheckedTrain;
}

/** `namespace/name` of a train, as logs, Events and the CLI name it. */
export function trainName(train: { metadata: { namespace: string; name: string } }): string {
  return `${train.metadata.namespace}/${train.metadata.name}`;
}
