/**
 * The tests' own simulated fleet, independent of the demo: a management cluster with the
 * Pipeline and GitopsCluster CRDs, and dev, staging and prod clusters running Flux's
 * HelmRelease CRD, each registered as a GitopsCluster. The gateway's user everywhere has
 * exactly the access the gateway documents (src/kube/access.ts), and each environment's Flux
 * Provider has its own generic-hmac key.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { applyFiles, startFleet, type SimCluster } from 'kube-sim';
import { registerGitopsCluster } from 'kube-sim/gitops';
import { managementAccess, TARGET_ACCESS } from '../../src/kube/access.js';

/** Environments in promotion order; each is its own simulated cluster. */
export const ENVIRONMENTS = ['dev', 'staging', 'prod'] as const;
/** Namespace of GitopsClusters, their kubeconfig Secrets and the resync Lease in management. */
export const FLUX_NAMESPACE = 'flux-system';
/** The user the gateway acts as in every simulated cluster. */
export const GATEWAY_USER = 'promotion-gateway';

const file = (path: string): string => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const MANAGEMENT_CRDS = [
  file('manifests/crd/pipelines.weave.works_pipelines.yaml'),
  file('manifests/third-party/gitopsclusters.gitops.weave.works.yaml'),
  file('manifests/crd/notifications.promotion-gateway.dev_promotionalerts.yaml'),
  file('manifests/crd/pipelines.promotion-gateway.dev_promotiontrains.yaml'),
];
const HELM_RELEASE_CRD = file('test/fixtures/flux/crds/helm.toolkit.fluxcd.io_helmreleases.yaml');

/** A running test fleet. */
export interface TestFleet extends Record<
  (typeof ENVIRONMENTS)[number] | 'management',
  SimCluster
> {
  /** Environment name -> its cluster. */
  env(name: string): SimCluster;
  /** The generic-hmac key of an environment's Flux Provider, as raw bytes. */
  key(env: string): Buffer;
  close(): Promise<void>;
}

/** Starts the fleet on ephemeral loopback ports. */
export async function startTestFleet(): Promise<TestFleet> {
  const fleet = await startFleet({ clusters: ['management', ...ENVIRONMENTS] });
  const management = fleet.cluster('management');
  await applyFiles(management, MANAGEMENT_CRDS);
  management.addUser(GATEWAY_USER, managementAccess(FLUX_NAMESPACE));
  const keys = new Map<string, Buffer>();
  for (const name of ENVIRONMENTS) {
    const cluster = fleet.cluster(name);
    await applyFiles(cluster, [HELM_RELEASE_CRD]);
    cluster.addUser(GATEWAY_USER, TARGET_ACCESS);
    registerGitopsCluster(management, cluster, { namespace: FLUX_NAMESPACE, user: GATEWAY_USER });
    keys.set(name, Buffer.from(randomBytes(20).toString('hex'), 'utf8'));
  }
  const env = (name: string): SimCluster => fleet.cluster(name);
  return {
    management,
    dev: env('dev'),
    staging: env('staging'),
    prod: env('prod'),
    env,
    key: (name) => keys.get(name) ?? Buffer.alloc(0),
    close: () => fleet.close(),
  };
}
