/**
 * The Kubernetes access the gateway needs, in one place: what manifests/deploy grants, what
 * the simulated fleets of the demo and the tests give the gateway's user, and nothing more.
 * A test checks the shipped RBAC against it.
 */

/** One grant: verbs on resources (`plural.group`, `plural/subresource`), optionally per namespace. */
export interface AccessRule {
  readonly verbs: readonly ('get' | 'list' | 'watch' | 'create' | 'update' | 'patch')[];
  readonly resources: readonly string[];
  /** Namespaces the grant is limited to; absent = every namespace. */
  readonly namespaces?: readonly string[];
  /** Object names the grant is limited to (RBAC's resourceNames); absent = every object. */
  readonly names?: readonly string[];
}

const APP_OBJECTS = [
  'helmreleases.helm.toolkit.fluxcd.io',
  'kustomizations.kustomize.toolkit.fluxcd.io',
];

const ALERTS = 'promotionalerts.notifications.promotion-gateway.dev';
const TRAINS = 'promotiontrains.pipelines.promotion-gateway.dev';

/** In each target cluster: read Flux's application objects, nothing else. */
export const TARGET_ACCESS: readonly AccessRule[] = [
  { verbs: ['get', 'list'], resources: APP_OBJECTS },
];

/**
 * In the management cluster: watch Pipelines and write their status, read the Pipeline CRD,
 * list PromotionAlerts and PromotionTrains and write theirs, read GitopsClusters and the Secrets they, legacy
 * webhooks and alerts name, record Events, hold the resync Lease in `leaseNamespace`, and read
 * app objects of targets that have no clusterRef.
 */
export function managementAccess(leaseNamespace: string): readonly AccessRule[] {
  return [
    { verbs: ['get', 'list', 'watch'], resources: ['pipelines.pipelines.weave.works'] },
    { verbs: ['get', 'update', 'patch'], resources: ['pipelines.pipelines.weave.works/status'] },
    { verbs: ['get', 'list', 'watch'], resources: [ALERTS] },
    { verbs: ['get', 'update', 'patch'], resources: [`${ALERTS}/status`] },
    { verbs: ['get', 'list', 'watch'], resources: [TRAINS] },
    { verbs: ['get', 'update', 'patch'], resources: [`${TRAINS}/status`] },
    { verbs: ['get', 'list'], resources: ['gitopsclusters.gitops.weave.works'] },
    { verbs: ['get'], resources: ['secrets'] },
    { verbs: ['create', 'patch'], resources: ['events'] },
    // The start-up check that the installed Pipeline CRD keeps the status (wiring/crd-check.ts).
    {
      verbs: ['get'],
      resources: ['customresourcedefinitions.apiextensions.k8s.io'],
      names: ['pipelines.pipelines.weave.works'],
    },
    {
      verbs: ['get', 'create', 'update'],
      resources: ['leases.coordination.k8s.io'],
      namespaces: [leaseNamespace],
    },
    ...TARGET_ACCESS,
  ];
}
