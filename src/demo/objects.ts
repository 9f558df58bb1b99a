/**
 * The objects of the embedded demo: a podinfo HelmRelease per environment, the Pipeline that
 * moves it dev -> staging -> prod, and what Flux's helm-controller writes on a release.
 */
import type { KubeObject } from '../kube/types.js';

/** Demo environments in promotion order; each is its own simulated cluster. */
export const DEMO_ENVIRONMENTS = ['dev', 'staging', 'prod'] as const;
/** Namespace of the app in every target cluster, and of the Pipeline in management. */
export const APP_NAMESPACE = 'podinfo';
/** Namespace of GitopsClusters and their kubeconfig Secrets in management. */
export const FLUX_NAMESPACE = 'flux-system';
/** The app's name (HelmRelease and Pipeline). */
export const APP_NAME = 'podinfo';
/** The revision every environment starts at. */
export const INITIAL_VERSION = '6.5.0';

/** A HelmRelease as Flux would have it after `version` installed cleanly. */
export function helmRelease(version: string): KubeObject {
  return {
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    metadata: { name: APP_NAME, namespace: APP_NAMESPACE },
    spec: {
      interval: '10m',
      chart: {
        spec: {
          chart: 'podinfo',
          version,
          sourceRef: { kind: 'HelmRepository', name: 'podinfo' },
        },
      },
    },
  };
}

interface HistoryEntry {
  chartVersion: string;
  version: number;
  status: string;
  [field: string]: unknown;
}

/**
 * The status helm-controller writes after a successful upgrade to `version` at `generation`:
 * a new `deployed` history entry on top (the previous one superseded), Ready=True.
 */
export function releasedStatus(
  previous: { history?: HistoryEntry[] } | undefined,
  version: string,
  generation: number,
  now: Date,
): Record<string, unknown> {
  const history = (previous?.history ?? []).map((h) =>
    h.status === 'deployed' ? { ...h, status: 'superseded' } : h,
  );
  const number = (history[0]?.version ?? 0) + 1;
  const at = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const action = number === 1 ? 'install' : 'upgrade';
  const message = `Helm ${action} succeeded for release ${APP_NAMESPACE}/${APP_NAME}.v${number} with chart podinfo@${version}`;
  const condition = (type: string, reason: string) => ({
    type,
    status: 'True',
    reason,
    message,
    observedGeneration: generation,
    lastTransitionTime: at,
  });
  return {
    observedGeneration: generation,
    lastAttemptedGeneration: generation,
    lastAttemptedRevision: version,
    lastAttemptedReleaseAction: action,
    storageNamespace: APP_NAMESPACE,
    conditions: [
      condition('Ready', action === 'install' ? 'InstallSucceeded' : 'UpgradeSucceeded'),
      condition('Released', action === 'install' ? 'InstallSucceeded' : 'UpgradeSucceeded'),
    ],
    history: [
      {
        apiVersion: 'v2',
        name: APP_NAME,
        namespace: APP_NAMESPACE,
        version: number,
        chartName: 'podinfo',
        chartVersion: version,
        appVersion: version,
        configDigest: 'sha256:e15c415d62760896bd8bec192a44c5716dc224db9e0fc609b9ac14718f8f9e56',
        digest: `sha256:${Buffer.from(version).toString('hex').padEnd(64, '0').slice(0, 64)}`,
        firstDeployed: at,
        lastDeployed: at,
        status: 'deployed',
      },
      ...history,
    ].slice(0, 5),
  };
}

/** The demo Pipeline: dev -> staging -> prod, notification strategy, one target each. */
export function demoPipeline(): KubeObject {
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name: APP_NAME, namespace: APP_NAMESPACE },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: APP_NAME },
      promotion: { strategy: { notification: {} } },
      environments: DEMO_ENVIRONMENTS.map((env) => ({
        name: env,
        targets: [
          {
            namespace: APP_NAMESPACE,
            clusterRef: { kind: 'GitopsCluster', name: env, namespace: FLUX_NAMESPACE },
          },
        ],
      })),
    },
  };
}

/**
 * The event helm-controller sends through notification-controller after an upgrade, as a
 * generic(-hmac) Provider receives it: Go's field order, compact, no trailing newline.
 */
export function upgradeEvent(
  object: KubeObject,
  version: string,
  revisionNumber: number,
  now: Date,
): string {
  const message = `Helm upgrade succeeded for release ${APP_NAMESPACE}/${APP_NAME}.v${revisionNumber} with chart podinfo@${version}`;
  return JSON.stringify({
    involvedObject: {
      kind: 'HelmRelease',
      namespace: object.metadata.namespace,
      name: object.metadata.name,
      uid: object.metadata.uid,
      apiVersion: 'helm.toolkit.fluxcd.io/v2',
      resourceVersion: object.metadata.resourceVersion,
    },
    severity: 'info',
    timestamp: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    message,
    reason: 'UpgradeSucceeded',
    metadata: { 'app-version': version, revision: version },
    reportingController: 'helm-controller',
    reportingInstance: 'helm-controller-demo',
  });
}
