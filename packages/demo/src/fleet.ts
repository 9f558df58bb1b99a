/**
 * Builds the demo's simulated fleet: a management cluster holding the Pipelines, the release
 * train, GitopsClusters and their kubeconfig Secrets, and one cluster per environment running
 * podinfo and the train's apps.
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { applyFiles, startFleet, type Fleet } from 'kube-sim';
import { installRelease } from 'kube-sim/flux';
import { managementAccess } from 'promotion-gateway';
import {
  APP_RELEASE,
  APP_NAMESPACE,
  DEMO_ENVIRONMENTS,
  FLUX_NAMESPACE,
  INITIAL_VERSION,
  TRAIN_APPS,
  TRAIN_NAMESPACE,
  demoPipeline,
  demoTrain,
  trainAppPipeline,
} from './objects.js';

/** A file shipped with the gateway package (its CRD and the third-party CRDs it reads). */
function gatewayFile(...segments: string[]): string {
  const root = dirname(createRequire(import.meta.url).resolve('promotion-gateway/package.json'));
  return join(root, ...segments);
}

/** A running demo fleet and the secrets the demo's Flux stand-in signs events with. */
export interface DemoFleet {
  fleet: Fleet;
  /** Per environment: the generic-hmac key its Flux Provider would use (hex text). */
  hmacKeys: Record<string, string>;
  /** The user the gateway acts as in the management cluster. */
  gatewayUser: string;
}

/** The least-privilege user the gateway acts as in every simulated cluster. */
export const GATEWAY_USER = 'promotion-gateway';

const TARGET_RULES = [
  {
    verbs: ['get' as const, 'list' as const, 'watch' as const],
    resources: [
      'helmreleases.helm.toolkit.fluxcd.io',
      'kustomizations.kustomize.toolkit.fluxcd.io',
    ],
  },
];

/** Starts the fleet and fills it; `basePort` 0 = ephemeral ports. */
export async function startDemoFleet(basePort = 0): Promise<DemoFleet> {
  const fleet = await startFleet({ clusters: ['management', ...DEMO_ENVIRONMENTS], basePort });
  try {
    const management = fleet.cluster('management');
    await applyFiles(management, [
      gatewayFile('manifests', 'crd', 'pipelines.weave.works_pipelines.yaml'),
      gatewayFile('manifests', 'third-party', 'gitopsclusters.gitops.weave.works.yaml'),
      gatewayFile('manifests', 'crd', 'notifications.promotion-gateway.dev_promotionalerts.yaml'),
      gatewayFile('manifests', 'crd', 'pipelines.promotion-gateway.dev_promotiontrains.yaml'),
    ]);
    management.ensureNamespace(FLUX_NAMESPACE);
    management.ensureNamespace(APP_NAMESPACE);
    // The grants the gateway's deployment gives it (manifests/deploy/rbac.yaml), no more.
    management.addUser(GATEWAY_USER, managementAccess(FLUX_NAMESPACE));
    const hmacKeys: Record<string, string> = {};
    for (const env of DEMO_ENVIRONMENTS) {
      const cluster = fleet.cluster(env);
      await applyFiles(cluster, [
        gatewayFile('manifests', 'third-party', 'flux', 'helm.toolkit.fluxcd.io_helmreleases.yaml'),
      ]);
      installRelease(cluster, APP_RELEASE, INITIAL_VERSION);
      for (const app of TRAIN_APPS)
        installRelease(cluster, { namespace: TRAIN_NAMESPACE, name: app.name }, app.version);
      cluster.addUser(GATEWAY_USER, TARGET_RULES);
      registerCluster(fleet, env, cluster.kubeconfig(GATEWAY_USER));
      hmacKeys[env] = randomBytes(20).toString('hex');
    }
    management.apply(demoPipeline());
    management.ensureNamespace(TRAIN_NAMESPACE);
    for (const app of TRAIN_APPS) management.apply(trainAppPipeline(app.name));
    management.apply(demoTrain());
    return { fleet, hmacKeys, gatewayUser: GATEWAY_USER };
  } catch (err) {
    await fleet.close();
    throw err;
  }
}

/** A GitopsCluster and its kubeconfig Secret in management, as weave-gitops expects them. */
function registerCluster(fleet: Fleet, env: string, kubeconfig: string): void {
  const management = fleet.cluster('management');
  management.apply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${env}-kubeconfig`, namespace: FLUX_NAMESPACE },
    type: 'Opaque',
    data: { value: Buffer.from(kubeconfig).toString('base64') },
  });
  management.apply({
    apiVersion: 'gitops.weave.works/v1alpha1',
    kind: 'GitopsCluster',
    metadata: { name: env, namespace: FLUX_NAMESPACE },
    spec: { secretRef: { name: `${env}-kubeconfig` } },
  });
}
