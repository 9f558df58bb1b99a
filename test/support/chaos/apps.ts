/**
 * The chaos fleet's applications: N Pipelines spread over a few team namespaces, each moving
 * its own HelmRelease dev -> staging -> prod with the webhook strategy, every second one with
 * prod behind an approval gate; and what Flux does for them (a rollout, then its signed event).
 */
import { createHmac } from 'node:crypto';
import type { SimCluster } from 'kube-sim';
import { installRelease, newestRelease, rollOutRelease, upgradeEvent } from 'kube-sim/flux';
import { ENVIRONMENTS, FLUX_NAMESPACE, type TestFleet } from '../fleet.js';
import type { Request } from './gateway-client.js';
import { ENDPOINT } from './replica-config.js';

/** The revision every environment starts at. */
export const INITIAL = '1.0.0';
export const PIPELINE_API = 'pipelines.weave.works/v1alpha1';
const HR_API = 'helm.toolkit.fluxcd.io/v2';

/** One application and its Pipeline (same name, same namespace everywhere). */
export interface App {
  ns: string;
  name: string;
  /** `ns/name`, as failures name it. */
  id: string;
  gated: boolean;
  /** The revisions the load rolled out in dev, in order. */
  devVersions: string[];
}

/** Creates `count` applications (HelmReleases at 1.0.0 everywhere) and their Pipelines. */
export function createApps(fleet: TestFleet, count: number): App[] {
  const apps: App[] = [];
  for (let i = 0; i < count; i++) {
    const ns = `team-${String(i % 4)}`;
    const name = `app-${String(i).padStart(3, '0')}`;
    const app: App = { ns, name, id: `${ns}/${name}`, gated: i % 2 === 1, devVersions: [] };
    for (const env of ENVIRONMENTS)
      installRelease(fleet.env(env), { namespace: ns, name }, INITIAL);
    fleet.management.ensureNamespace(ns);
    fleet.management.apply(pipelineOf(app));
    apps.push(app);
  }
  return apps;
}

function pipelineOf(app: App): Record<string, unknown> {
  const strategy = { webhook: { endpoint: ENDPOINT } };
  return {
    apiVersion: PIPELINE_API,
    kind: 'Pipeline',
    metadata: { name: app.name, namespace: app.ns },
    spec: {
      appRef: { apiVersion: HR_API, kind: 'HelmRelease', name: app.name },
      promotion: { strategy },
      environments: ENVIRONMENTS.map((env) => ({
        name: env,
        targets: [
          {
            namespace: app.ns,
            clusterRef: { kind: 'GitopsCluster', name: env, namespace: FLUX_NAMESPACE },
          },
        ],
        // weave requires a strategy beside any environment-level promotion setting.
        ...(env === 'prod' && app.gated
          ? { promotion: { strategy, approval: { minApprovals: 1 } } }
          : {}),
      })),
    },
  };
}

/** One Flux event as captured on the wire: which cluster's Provider sent it, and its bytes. */
export interface CapturedEvent {
  env: string;
  body: Buffer;
}

/**
 * What helm-controller and notification-controller do for a release: `cluster`'s HelmRelease
 * moves to `version` (synchronously, through the code API), and the event it causes is returned.
 */
export function rollOut(
  cluster: SimCluster,
  env: string,
  app: App,
  version: string,
): CapturedEvent {
  const object = rollOutRelease(cluster, app.ns, app.name, version);
  const number = newestRelease(object)?.version ?? 1;
  return { env, body: Buffer.from(upgradeEvent(object, version, number, new Date()), 'utf8') };
}

/** `event` as a generic-hmac Provider posts it, signed with its cluster's key. */
export function eventRequest(fleet: TestFleet, event: CapturedEvent): Request {
  const signature = createHmac('sha256', fleet.key(event.env)).update(event.body).digest('hex');
  return {
    kind: 'event',
    path: `/v1/events/${event.env}`,
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'gotk-component': 'helm-controller',
      'x-signature': `sha256=${signature}`,
    },
    body: event.body,
  };
}

/** The revision `env`'s HelmRelease of `app` runs (its newest deployed release). */
export function runningRevision(fleet: TestFleet, env: string, app: App): string | undefined {
  const object = fleet.env(env).get(HR_API, 'HelmRelease', app.ns, app.name);
  return object === undefined ? undefined : newestRelease(object)?.chartVersion;
}

/** The stored Pipeline status of `app` (read through the code API: no request counted). */
export function statusOf(fleet: TestFleet, app: App): PipelineStatusView | undefined {
  const object = fleet.management.get(PIPELINE_API, 'Pipeline', app.ns, app.name);
  return (object as { status?: PipelineStatusView } | undefined)?.status;
}

/** The parts of a Pipeline status the chaos checks read. */
export interface PipelineStatusView {
  environments?: Record<
    string,
    {
      promotion?: {
        revision: string;
        phase?: string;
        claimedBy?: string;
        lastAttemptedTime?: string;
        attempt?: number;
      };
      waitingApproval?: { revision: string };
      history?: { revision: string; succeededTime?: string }[];
    }
  >;
}
