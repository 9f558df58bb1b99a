/**
 * API coordinates of the kinds the gateway touches. Custom resources have no discovery-free
 * way to know their plural, so the few we use are listed here (Flux's in pipeline/flux-kinds).
 */
import { parseApiVersion } from '../pipeline/api-version.js';
import { fluxAppKind } from '../pipeline/flux-kinds.js';

/** Group/version/plural of a kind, as used in REST paths. */
export interface ResourceCoordinates {
  group: string;
  version: string;
  plural: string;
}

const plurals: ReadonlyMap<string, string> = new Map([
  ['Pipeline', 'pipelines'],
  ['GitopsCluster', 'gitopsclusters'],
  ['PromotionAlert', 'promotionalerts'],
  ['PromotionTrain', 'promotiontrains'],
]);

/** Coordinates for apiVersion/kind, or undefined for a kind the gateway does not read. */
export function coordinatesFor(apiVersion: string, kind: string): ResourceCoordinates | undefined {
  const plural = fluxAppKind(kind)?.plural ?? plurals.get(kind);
  if (plural === undefined) return undefined;
  return { ...parseApiVersion(apiVersion), plural };
}

/** The Pipeline custom resource (weave-gitops), served version v1alpha1. */
export const PIPELINE: ResourceCoordinates = {
  group: 'pipelines.weave.works',
  version: 'v1alpha1',
  plural: 'pipelines',
};

/** The GitopsCluster custom resource (weave-gitops). */
export const GITOPS_CLUSTER: ResourceCoordinates = {
  group: 'gitops.weave.works',
  version: 'v1alpha1',
  plural: 'gitopsclusters',
};

/** The PromotionAlert custom resource (ours: docs/notifications.md). */
export const PROMOTION_ALERT: ResourceCoordinates = {
  group: 'notifications.promotion-gateway.dev',
  version: 'v1alpha1',
  plural: 'promotionalerts',
};

/** The PromotionTrain custom resource (ours: docs/policy.md, "Release trains"). */
export const PROMOTION_TRAIN: ResourceCoordinates = {
  group: 'pipelines.promotion-gateway.dev',
  version: 'v1alpha1',
  plural: 'promotiontrains',
};

/** Core and built-in kinds the gateway calls, in the same coordinates (group '' is core). */
export const SECRET: ResourceCoordinates = { group: '', version: 'v1', plural: 'secrets' };

/** core/v1 Events, which the gateway records on Pipelines. */
export const EVENT: ResourceCoordinates = { group: '', version: 'v1', plural: 'events' };

/** coordination.k8s.io/v1 Leases (leader election). */
export const LEASE: ResourceCoordinates = {
  group: 'coordination.k8s.io',
  version: 'v1',
  plural: 'leases',
};

/** CustomResourceDefinitions (cluster-scoped). */
export const CRD: ResourceCoordinates = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
};
