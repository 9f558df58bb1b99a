/**
 * The objects of the embedded demo: where podinfo lives in each environment and the Pipeline
 * that moves it dev -> staging -> prod; and a release train of two more apps (api, then web)
 * whose staging and prod take only a combination of their versions seen together upstream.
 */
import type { KubeObject } from 'promotion-gateway';
import type { ReleaseRef } from 'kube-sim/flux';

/** Demo environments in promotion order; each is its own simulated cluster. */
export const DEMO_ENVIRONMENTS = ['dev', 'staging', 'prod'] as const;
/** The one environment the demo promotes through a pull request (fleet-repo.ts sets it up). */
export const PULL_REQUEST_ENVIRONMENT = 'prod';
/** Namespace of the app in every target cluster, and of the Pipeline in management. */
export const APP_NAMESPACE = 'podinfo';
/** Namespace of GitopsClusters and their kubeconfig Secrets in management. */
export const FLUX_NAMESPACE = 'flux-system';
/** The app's name (HelmRelease and Pipeline). */
export const APP_NAME = 'podinfo';
/** The demo's release in every environment. */
export const APP_RELEASE: ReleaseRef = {
  namespace: APP_NAMESPACE,
  name: APP_NAME,
  chart: 'podinfo',
};
/** The demo's one approver (its key pair is made at start). */
export const DEMO_APPROVER = 'demo-approver';
/** The CI policy whose tokens may promote prod in the demo. */
export const DEMO_CI_POLICY = 'demo-e2e';

/**
 * staging's soak: dev must have run a revision healthy this long, without a break, before
 * staging takes it. Short, so the story moves on by itself; a real soak is minutes or hours.
 */
export const DEMO_SOAK = '5s';

/**
 * staging's automatic rollback window: a version promoted to staging that turns it unhealthy
 * within this long (its Helm tests fail, say) is rolled back, and held for staging and prod. A
 * few minutes, so the demo's story fits in it; a real window is as long as failures take to show.
 */
export const DEMO_ROLLBACK_WINDOW = '5m';

/** The revision every environment starts at. */
export const INITIAL_VERSION = '6.5.0';

/**
 * The demo Pipeline `name` (of the HelmRelease `name`): dev -> staging -> prod, one target
 * each, the notification strategy; staging takes what dev has run healthy for DEMO_SOAK and is
 * rolled back by itself when it turns unhealthy within DEMO_ROLLBACK_WINDOW of a promotion; prod
 * waits for one authorization by `approvers` (the demo's: its approver, or its CI job) of the
 * revision staging runs, then promotes by `prodStrategy`.
 */
export function demoPipeline(
  name = APP_NAME,
  approvers = [DEMO_APPROVER, `ci:${DEMO_CI_POLICY}`],
  prodStrategy: Record<string, unknown> = { notification: {} },
): KubeObject {
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name, namespace: APP_NAMESPACE },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name },
      promotion: { strategy: { notification: {} } },
      environments: DEMO_ENVIRONMENTS.map((env) => ({
        name: env,
        targets: [
          {
            namespace: APP_NAMESPACE,
            clusterRef: { kind: 'GitopsCluster', name: env, namespace: FLUX_NAMESPACE },
          },
        ],
        ...(env === 'staging'
          ? {
              promotion: {
                strategy: { notification: {} },
                soak: { duration: DEMO_SOAK },
                rollback: { automatic: { window: DEMO_ROLLBACK_WINDOW } },
              },
            }
          : {}),
        ...(env === 'prod'
          ? {
              promotion: {
                strategy: prodStrategy,
                approval: { minApprovals: 1, approvers },
              },
            }
          : {}),
      })),
    },
  };
}

/** Namespace of the release train's apps and Pipelines, and of the train. */
export const TRAIN_NAMESPACE = 'shop';
/** The release train's name. */
export const TRAIN_NAME = 'shop';
/** The train's apps and the version each runs everywhere at start; web goes after api. */
export const TRAIN_APPS = [
  { name: 'api', version: '1.4.0' },
  { name: 'web', version: '2.3.0' },
] as const;

/** The Pipeline of a train app: dev -> staging -> prod, one target each, no gate of its own. */
export function trainAppPipeline(name: string): KubeObject {
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name, namespace: TRAIN_NAMESPACE },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name },
      promotion: { strategy: { notification: {} } },
      environments: DEMO_ENVIRONMENTS.map((env) => ({
        name: env,
        targets: [
          {
            namespace: TRAIN_NAMESPACE,
            clusterRef: { kind: 'GitopsCluster', name: env, namespace: FLUX_NAMESPACE },
          },
        ],
      })),
    },
  };
}

/** The release train: api and web, web promoted into an environment after api runs there. */
export function demoTrain(): KubeObject {
  return {
    apiVersion: 'pipelines.promotion-gateway.dev/v1alpha1',
    kind: 'PromotionTrain',
    metadata: { name: TRAIN_NAME, namespace: TRAIN_NAMESPACE },
    spec: { members: [{ name: 'api' }, { name: 'web', dependsOn: ['api'] }] },
  };
}
