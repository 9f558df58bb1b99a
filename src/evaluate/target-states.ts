/**
 * Pure helpers over one environment's verified targets: lining them up with the spec and
 * summarising whether they form a single healthy revision.
 */
import { display } from '../text/text.js';
import type { PipelineEnvironment } from '../pipeline/pipeline-resource.js';
import type { TargetStatus } from './decisions.js';

/** How an environment's targets stand as a source of a revision. */
export type TargetSummary =
  | { kind: 'NoTargets' }
  | { kind: 'Unknown'; targets: TargetStatus[] }
  | { kind: 'NotReady'; targets: TargetStatus[] }
  | { kind: 'Mismatch'; revisions: (string | undefined)[] }
  | { kind: 'NoRevision' }
  | { kind: 'Ready'; revision: string };

/**
 * One status per spec target, in spec order. Missing entries, or every entry of an environment
 * whose name is not unique (its statuses and records would be ambiguous), become Unknown.
 */
export function alignTargets(
  env: PipelineEnvironment,
  given: readonly TargetStatus[] | undefined,
  duplicateName: boolean,
): TargetStatus[] {
  return env.targets.map((target, index) => {
    const location = { cluster: target.clusterRef?.name ?? '', namespace: target.namespace };
    if (duplicateName) {
      return unknownTarget(
        location,
        'DuplicateEnvironment',
        `environment name ${env.name} is not unique`,
      );
    }
    const status = given?.[index];
    return (
      status ??
      unknownTarget(location, 'MissingStatus', `no verified status for target #${index + 1}`)
    );
  });
}

function unknownTarget(
  location: TargetStatus['location'],
  reason: string,
  message: string,
): TargetStatus {
  return { location, health: 'Unknown', reason, message };
}

/** Summarise targets by the first problem found, in precedence Unknown, NotReady, Mismatch, NoRevision. */
export function summarise(targets: readonly TargetStatus[]): TargetSummary {
  if (targets.length === 0) return { kind: 'NoTargets' };
  const unknown = targets.filter((t) => t.health === 'Unknown');
  if (unknown.length > 0) return { kind: 'Unknown', targets: unknown };
  const notReady = targets.filter((t) => t.health !== 'Healthy');
  if (notReady.length > 0) return { kind: 'NotReady', targets: notReady };
  const revisions = distinct(targets.map((t) => t.revision));
  if (revisions.length > 1) return { kind: 'Mismatch', revisions };
  const revision = revisions[0];
  // An empty string is no revision: it could never be promoted or compared meaningfully.
  if (revision === undefined || revision === '') return { kind: 'NoRevision' };
  return { kind: 'Ready', revision };
}

function distinct<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

/** True when any target is Unknown. */
export function hasUnknown(targets: readonly TargetStatus[]): boolean {
  return targets.some((t) => t.health === 'Unknown');
}

/** Where a target is, for messages: cluster/namespace, or just the namespace on the management cluster. */
export function where(target: TargetStatus): string {
  const { cluster, namespace } = target.location;
  return display(cluster === '' ? namespace : `${cluster}/${namespace}`, 96);
}

/** Up to three targets with their reasons, e.g. "eu/apps (UpgradeFailed) and 2 more". */
export function describeTargets(targets: readonly TargetStatus[]): string {
  const shown = targets.slice(0, 3).map((t) => `${where(t)} (${display(t.reason, 64)})`);
  const more = targets.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}

/** "1 target" or "all N targets", for messages. */
export function count(n: number): string {
  return n === 1 ? '1 target' : `all ${n} targets`;
}
