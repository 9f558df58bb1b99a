/**
 * What Flux writes, for simulations: a HelmRelease as applied from Git, the status
 * helm-controller records after a release (or a failed upgrade), and the event
 * notification-controller forwards to a generic(-hmac) Provider, byte for byte in Go's field
 * order. Tests, the demo and benchmarks roll environments out with these instead of each
 * keeping its own copy of helm-controller's behaviour.
 */
import type { SimCluster } from './cluster.js';
import type { SimObject } from './resources.js';

/** The HelmRelease apiVersion helm-controller serves today. */
export const HELM_RELEASE_API = 'helm.toolkit.fluxcd.io/v2';

/** Which release: the HelmRelease's name and namespace, and its chart's name. */
export interface ReleaseRef {
  namespace: string;
  name: string;
  /** Chart name; defaults to the release name. */
  chart?: string;
}

/** A HelmRelease as Flux would have it applied from Git, before any status. */
export function helmRelease(ref: ReleaseRef, version: string): SimObject {
  return {
    apiVersion: HELM_RELEASE_API,
    kind: 'HelmRelease',
    metadata: { name: ref.name, namespace: ref.namespace },
    spec: {
      interval: '10m',
      chart: {
        spec: {
          chart: ref.chart ?? ref.name,
          version,
          sourceRef: { kind: 'HelmRepository', name: ref.chart ?? ref.name },
        },
      },
    },
  };
}

/** One entry of a HelmRelease's `status.history`, as far as simulations need it. */
export interface HistoryEntry {
  chartVersion: string;
  version: number;
  status: string;
  [field: string]: unknown;
}

/** The part of a HelmRelease status that a new release builds on. */
export interface PreviousStatus {
  history?: HistoryEntry[];
}

/** Kubernetes' second-precision RFC 3339 form of `now`. */
function metaTime(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** One release attempt of `ref` at `version`: the spec's `generation`, and when it ended. */
export interface ReleaseAttempt {
  ref: ReleaseRef;
  /** The status before the attempt (its history), undefined for a first install. */
  previous: PreviousStatus | undefined;
  version: string;
  generation: number;
  now: Date;
}

/** The fields every status helm-controller writes after an attempt begins with. */
function attempted(a: ReleaseAttempt, action: 'install' | 'upgrade'): Record<string, unknown> {
  return {
    observedGeneration: a.generation,
    lastAttemptedGeneration: a.generation,
    lastAttemptedRevision: a.version,
    lastAttemptedReleaseAction: action,
    storageNamespace: a.ref.namespace,
  };
}

/** A condition of the status `a` ends with; they all carry its message, generation and time. */
function conditionOf(a: ReleaseAttempt, message: string) {
  return (type: string, status: string, reason: string) => ({
    type,
    status,
    reason,
    message,
    observedGeneration: a.generation,
    lastTransitionTime: metaTime(a.now),
  });
}

/**
 * The status helm-controller writes after a successful install or upgrade: a new `deployed`
 * history entry on top (the previous one superseded), Ready=True.
 */
export function releasedStatus(a: ReleaseAttempt): Record<string, unknown> {
  const { ref, version } = a;
  const history = (a.previous?.history ?? []).map((h) =>
    h.status === 'deployed' ? { ...h, status: 'superseded' } : h,
  );
  const number = (history[0]?.version ?? 0) + 1;
  const at = metaTime(a.now);
  const action = number === 1 ? 'install' : 'upgrade';
  const chart = ref.chart ?? ref.name;
  const reason = action === 'install' ? 'InstallSucceeded' : 'UpgradeSucceeded';
  const condition = conditionOf(
    a,
    `Helm ${action} succeeded for release ${ref.namespace}/${ref.name}.v${number} with chart ${chart}@${version}`,
  );
  return {
    ...attempted(a, action),
    conditions: [condition('Ready', 'True', reason), condition('Released', 'True', reason)],
    history: [
      {
        apiVersion: 'v2',
        name: ref.name,
        namespace: ref.namespace,
        version: number,
        chartName: chart,
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

/**
 * The status helm-controller writes when an upgrade fails and is rolled back: the previous
 * release stays `deployed`, Ready=False (UpgradeFailed), Stalled once retries are exhausted.
 * The deployed revision is therefore still the old one.
 */
export function failedUpgradeStatus(a: ReleaseAttempt): Record<string, unknown> {
  const { ref, version } = a;
  const condition = conditionOf(
    a,
    `Helm upgrade failed for release ${ref.namespace}/${ref.name} with chart ${ref.chart ?? ref.name}@${version}: context deadline exceeded`,
  );
  return {
    ...attempted(a, 'upgrade'),
    failures: 1,
    upgradeFailures: 1,
    conditions: [
      condition('Ready', 'False', 'UpgradeFailed'),
      condition('Released', 'False', 'UpgradeFailed'),
      condition('Stalled', 'True', 'RetriesExceeded'),
    ],
    history: a.previous?.history ?? [],
  };
}

/** The status of a stored release, as far as a test of it needs. */
export interface ReleasedStatus extends PreviousStatus {
  observedGeneration?: number;
  conditions?: { type: string; message?: string }[];
}

/**
 * The status helm-controller writes when the Helm tests of the current release fail (a chart
 * with `spec.test.enable`): the release stays `deployed` (so a reader still finds its version),
 * its snapshot records the failed test hook, TestSuccess and Ready turn False (TestFailed).
 */
export function failedTestStatus(current: ReleasedStatus, now: Date): Record<string, unknown> {
  const [latest, ...older] = current.history ?? [];
  if (latest === undefined) throw new Error('a failed test needs a release to test');
  const { name, namespace, version, chartName, chartVersion } = latest;
  const hook = `${String(name)}-test-connection`;
  const at = metaTime(now);
  const failed = {
    status: 'False',
    reason: 'TestFailed',
    message: `Helm test failed for release ${String(namespace)}/${String(name)}.v${String(version)} with chart ${String(chartName)}@${chartVersion}: pod ${hook} failed`,
    observedGeneration: current.observedGeneration,
    lastTransitionTime: at,
  };
  const kept = (current.conditions ?? []).filter((c) => !['Ready', 'TestSuccess'].includes(c.type));
  const tested = { lastStarted: at, lastCompleted: at, phase: 'Failed' };
  return {
    ...current,
    failures: 1,
    conditions: [{ type: 'Ready', ...failed }, ...kept, { type: 'TestSuccess', ...failed }],
    history: [{ ...latest, testHooks: { [`${String(namespace)}/${hook}`]: tested } }, ...older],
  };
}

/** The newest history entry of a stored HelmRelease (its release number and chart version). */
export function newestRelease(object: SimObject): HistoryEntry | undefined {
  return (object.status as PreviousStatus | undefined)?.history?.[0];
}

function refOf(object: SimObject): ReleaseRef {
  const metadata = object.metadata as { name: string; namespace: string };
  const spec = object.spec as { chart?: { spec?: { chart?: string } } } | undefined;
  const chart = spec?.chart?.spec?.chart;
  return {
    namespace: metadata.namespace,
    name: metadata.name,
    ...(chart === undefined ? {} : { chart }),
  };
}

/**
 * What helm-controller does on a release, through the cluster's code API (not counted as API
 * requests): the spec moves to `version` (a generation bump), then the status reports it
 * deployed, or, with `fail`, the upgrade failed and the old release still runs.
 */
export function rollOutRelease(
  cluster: SimCluster,
  namespace: string,
  name: string,
  version: string,
  options: { fail?: boolean; now?: Date } = {},
): SimObject {
  const current = cluster.get(HELM_RELEASE_API, 'HelmRelease', namespace, name);
  if (current === undefined) throw new Error(`no HelmRelease ${namespace}/${name}`);
  const spec = current.spec as { chart: { spec: Record<string, unknown> } };
  const moved = cluster.apply({
    ...current,
    spec: { ...spec, chart: { ...spec.chart, spec: { ...spec.chart.spec, version } } },
  });
  const generation = (moved.metadata as { generation?: number }).generation ?? 1;
  const previous = moved.status as PreviousStatus | undefined;
  const now = options.now ?? new Date();
  const attempt = { ref: refOf(moved), previous, version, generation, now };
  const status = options.fail ? failedUpgradeStatus(attempt) : releasedStatus(attempt);
  return cluster.apply({ ...moved, status });
}

/**
 * Creates `namespace` and a HelmRelease released cleanly at `version` in it (install, Ready),
 * through the code API.
 */
export function installRelease(cluster: SimCluster, ref: ReleaseRef, version: string): SimObject {
  cluster.ensureNamespace(ref.namespace);
  const created = cluster.apply(helmRelease(ref, version));
  const generation = (created.metadata as { generation?: number }).generation ?? 1;
  return cluster.apply({
    ...created,
    status: releasedStatus({ ref, previous: undefined, version, generation, now: new Date() }),
  });
}

/**
 * The event helm-controller sends through notification-controller after an upgrade of
 * `object` to `version` (release number `revisionNumber`), as a generic(-hmac) Provider
 * receives it: Go's field order, compact, no trailing newline.
 */
export function upgradeEvent(
  object: SimObject,
  version: string,
  revisionNumber: number,
  now: Date,
): string {
  const ref = refOf(object);
  const message = `Helm upgrade succeeded for release ${ref.namespace}/${ref.name}.v${revisionNumber} with chart ${ref.chart ?? ref.name}@${version}`;
  const what = { severity: 'info', reason: 'UpgradeSucceeded', message };
  return releaseEvent(object, version, now, what);
}

/**
 * The warning event helm-controller sends when the tests of `object`'s current release fail
 * (`object` with failedTestStatus's status), forwarded as severity `error`; same form as above.
 */
export function testFailedEvent(object: SimObject, now: Date): string {
  const conditions = (object.status as ReleasedStatus | undefined)?.conditions ?? [];
  const message = conditions.find((c) => c.type === 'Ready')?.message ?? 'Helm test failed';
  const version = newestRelease(object)?.chartVersion ?? '';
  return releaseEvent(object, version, now, { severity: 'error', reason: 'TestFailed', message });
}

function releaseEvent(
  object: SimObject,
  version: string,
  now: Date,
  what: { severity: string; reason: string; message: string },
): string {
  const metadata = object.metadata as Record<string, string | undefined>;
  return JSON.stringify({
    involvedObject: {
      kind: 'HelmRelease',
      namespace: metadata.namespace,
      name: metadata.name,
      uid: metadata.uid,
      apiVersion: HELM_RELEASE_API,
      resourceVersion: metadata.resourceVersion,
    },
    severity: what.severity,
    timestamp: metaTime(now),
    message: what.message,
    reason: what.reason,
    metadata: { 'app-version': version, revision: version },
    reportingController: 'helm-controller',
    reportingInstance: 'helm-controller-sim',
  });
}
