/**
 * One isolated app per test and Flux's moves on it, reproduced exactly: its namespace on every
 * cluster, a podinfo HelmRelease in each environment, Pipeline ns/podinfo in management, a
 * release rolled out as helm-controller does, and its event's bytes signed as
 * notification-controller sends them.
 */
import type { SimCluster } from 'kube-sim';
import { installRelease, rollOutRelease, upgradeEvent, newestRelease } from 'kube-sim/flux';
import { signBody } from '../../src/auth/hmac.js';
import type { KubeObject } from '../../src/kube/ports.js';
import type { PromotionSpec, StrategySpec } from '../../src/pipeline/pipeline-resource.js';
import { ENVIRONMENTS, FLUX_NAMESPACE, type TestFleet } from './fleet.js';
import { APP_NAME, PIPELINE_API } from './gateway-observations.js';

/** The revision every environment starts at. */
export const INITIAL_VERSION = '6.5.0';
export const HR_API = 'helm.toolkit.fluxcd.io/v2';
/** `resource` filter for kube-sim request counters. */
export const HR_RESOURCE = 'helmreleases.helm.toolkit.fluxcd.io';

/**
 * One isolated app: namespace `ns` on every cluster, a podinfo HelmRelease released at 6.5.0
 * in dev/staging/prod, and Pipeline ns/podinfo (dev -> staging -> prod, notification strategy)
 * in management. `legacyKey`: Secret `legacy-hmac` with that `hmac-key`, named in secretRef.
 * `prodPromotion`: prod's own promotion settings (manual, approval gate); `prodStrategy`: its
 * own strategy.
 */
export function createApp(
  fleet: TestFleet,
  ns: string,
  options: {
    legacyKey?: Buffer;
    prodPromotion?: Omit<PromotionSpec, 'strategy'>;
    /** staging's own promotion settings (e.g. an automatic rollback). */
    stagingPromotion?: Omit<PromotionSpec, 'strategy'>;
    /** prod's own strategy (e.g. pull-request); the others keep the notification strategy. */
    prodStrategy?: StrategySpec;
    /** The Pipeline's labels (e.g. the shard that serves it). */
    labels?: Record<string, string>;
  } = {},
): void {
  for (const name of ENVIRONMENTS) {
    installRelease(fleet.env(name), { namespace: ns, name: APP_NAME }, INITIAL_VERSION);
  }
  fleet.management.ensureNamespace(ns);
  const strategy: StrategySpec = { notification: {} };
  if (options.legacyKey !== undefined) {
    fleet.management.apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'legacy-hmac', namespace: ns },
      type: 'Opaque',
      data: { 'hmac-key': options.legacyKey.toString('base64') },
    });
    strategy.secretRef = { name: 'legacy-hmac' };
  }
  fleet.management.apply({
    apiVersion: PIPELINE_API,
    kind: 'Pipeline',
    metadata: {
      name: APP_NAME,
      namespace: ns,
      ...(options.labels === undefined ? {} : { labels: options.labels }),
    },
    spec: {
      appRef: { apiVersion: HR_API, kind: 'HelmRelease', name: APP_NAME },
      promotion: { strategy },
      environments: ENVIRONMENTS.map((env) => ({
        name: env,
        targets: [
          {
            namespace: ns,
            clusterRef: { kind: 'GitopsCluster', name: env, namespace: FLUX_NAMESPACE },
          },
        ],
        // weave requires a strategy beside any environment-level promotion setting.
        ...(env === 'prod' &&
        (options.prodPromotion !== undefined || options.prodStrategy !== undefined)
          ? { promotion: { strategy: options.prodStrategy ?? strategy, ...options.prodPromotion } }
          : {}),
        ...(env === 'staging' && options.stagingPromotion !== undefined
          ? { promotion: { strategy, ...options.stagingPromotion } }
          : {}),
      })),
    },
  });
}

/**
 * What Flux's helm-controller does on a release, through kube-sim's code API (not counted as
 * API requests): the spec moves (generation bump), then the status reports `version` deployed.
 */
export function rollOut(cluster: SimCluster, ns: string, version: string): KubeObject {
  return rollOutRelease(cluster, ns, APP_NAME, version) as unknown as KubeObject;
}

/**
 * The exact bytes helm-controller's UpgradeSucceeded event reaches a generic-hmac Provider
 * with, for `object`; `claimed` is the revision its message and metadata state (default the
 * object's real one), so tests can forge a claim while keeping the wire format.
 */
export function upgradeBody(object: KubeObject, claimed?: string): Buffer {
  const newest = newestRelease(object);
  const version = claimed ?? newest?.chartVersion ?? INITIAL_VERSION;
  return Buffer.from(upgradeEvent(object, version, newest?.version ?? 1, new Date()), 'utf8');
}

/** POSTs `body` exactly as notification-controller does for a generic-hmac Provider. */
export function postSigned(
  url: string,
  path: string,
  body: Buffer,
  key: Buffer | undefined,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'Gotk-Component': 'helm-controller',
      ...(key === undefined ? {} : { 'X-Signature': signBody(body, key) }),
      ...headers,
    },
    body,
  });
}
