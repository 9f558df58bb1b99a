/**
 * Release trains on the tests' kube-sim fleet: several apps in one namespace (each its own
 * HelmRelease in dev, staging and prod and its own Pipeline dev -> staging -> prod, notification
 * strategy), a PromotionTrain over them, and what Flux would do when a promotion Event arrives.
 */
import { installRelease, rollOutRelease } from 'kube-sim/flux';
import type { PromotionSpec, StrategySpec } from '../../src/pipeline/pipeline-resource.js';
import type { TrainSpec, TrainStatus } from '../../src/trains/train-resource.js';
import { ENVIRONMENTS, FLUX_NAMESPACE, type TestFleet } from './fleet.js';
import { HR_API, INITIAL_VERSION, PIPELINE_API, type CoreEvent } from './gateway-harness.js';

/** apiVersion of PromotionTrains. */
export const TRAIN_API = 'pipelines.promotion-gateway.dev/v1alpha1';

/**
 * One Pipeline per app in `ns`, every release at INITIAL_VERSION; `prod` settings for each, and
 * by app the strategy prod is promoted with (the notification strategy otherwise).
 */
export function createTrainApps(
  fleet: TestFleet,
  ns: string,
  apps: readonly string[],
  prod: Omit<PromotionSpec, 'strategy'> = {},
  prodStrategies: Readonly<Record<string, StrategySpec>> = {},
): void {
  fleet.management.ensureNamespace(ns);
  for (const app of apps) {
    for (const env of ENVIRONMENTS)
      installRelease(fleet.env(env), { namespace: ns, name: app }, INITIAL_VERSION);
    const strategy: StrategySpec = { notification: {} };
    const own = prodStrategies[app];
    fleet.management.apply({
      apiVersion: PIPELINE_API,
      kind: 'Pipeline',
      metadata: { name: app, namespace: ns, labels: { train: ns } },
      spec: {
        appRef: { apiVersion: HR_API, kind: 'HelmRelease', name: app },
        promotion: { strategy },
        environments: ENVIRONMENTS.map((env) => ({
          name: env,
          targets: [
            {
              namespace: ns,
              clusterRef: { kind: 'GitopsCluster', name: env, namespace: FLUX_NAMESPACE },
            },
          ],
          ...(env === 'prod' && (own !== undefined || Object.keys(prod).length > 0)
            ? { promotion: { strategy: own ?? strategy, ...prod } }
            : {}),
        })),
      },
    });
  }
}

/** Creates (or replaces the spec of) PromotionTrain ns/`name`. */
export function applyTrain(fleet: TestFleet, ns: string, name: string, spec: TrainSpec): void {
  fleet.management.apply({
    apiVersion: TRAIN_API,
    kind: 'PromotionTrain',
    metadata: { name, namespace: ns },
    spec,
  });
}

/** The stored status of PromotionTrain ns/`name`. */
export function trainStatus(fleet: TestFleet, ns: string, name: string): TrainStatus | undefined {
  const object = fleet.management.get(TRAIN_API, 'PromotionTrain', ns, name) as
    { status?: TrainStatus } | undefined;
  return object?.status;
}

/** Rolls `app` out at `version` in `env` (healthy, or failed when `fail`). */
export function rollApp(
  fleet: TestFleet,
  ns: string,
  env: string,
  app: string,
  version: string,
  fail = false,
): void {
  rollOutRelease(fleet.env(env), ns, app, version, { fail });
}

/** The Promote Events of `ns` into `env`, as [pipeline, version], in the order recorded. */
export function promotionsInto(fleet: TestFleet, ns: string, env: string): [string, string][] {
  const events = fleet.management.list('v1', 'Event', ns) as unknown as (CoreEvent & {
    firstTimestamp?: string;
    metadata: { creationTimestamp?: string; resourceVersion?: string };
  })[];
  return events
    .filter((e) => e.reason === 'Promote' && e.metadata.annotations?.environment === env)
    .sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion))
    .map((e) => [e.involvedObject?.name ?? '', e.metadata.annotations?.version ?? '']);
}
