/**
 * One Pipeline as the fleet page shows it: per environment the verified revision and health
 * (from the stored target records, which every replica shares) and what waits (waits.ts), plus
 * the flags the counts add up. Built from the watched Pipeline and, when this replica has
 * evaluated it, the view GET /v1/pipelines serves (decisions and policy gates). Pure.
 */
import type { TargetStatus } from '../evaluate/decisions.js';
import { pipelineIdOf, type PipelineId } from '../pipeline/id.js';
import type { Pipeline, TargetStatusRecord } from '../pipeline/pipeline-resource.js';
import { clip } from '../text/text.js';
import type { PipelineView } from '../reconcile/view.js';
import { decisionState, storedState, type Tone } from './waits.js';

/** How an environment's targets stand, as read by the gateway. */
export type Health = 'healthy' | 'unhealthy' | 'unknown' | 'unverified';

/** One environment of one Pipeline. */
export interface EnvSummary {
  name: string;
  /** The revision its targets run ('' before any read; several joined when they differ). */
  revision: string;
  health: Health;
  /** e.g. `2/2 ready`, or the first problem. */
  healthText: string;
  /** What waits, in words ('' when nothing does). */
  state: string;
  tone: Tone;
  waiting: boolean;
  failed: boolean;
}

/** One Pipeline, one fleet row. */
export interface PipelineSummary {
  id: PipelineId;
  namespace: string;
  name: string;
  /** `HelmRelease podinfo`. */
  app: string;
  environments: EnvSummary[];
  waiting: boolean;
  failed: boolean;
  unhealthy: boolean;
}

/** The summary of `pipeline`, with the replica's latest `view` of it when it has one. */
export function summarize(pipeline: Pipeline, view: PipelineView | undefined): PipelineSummary {
  const decisions = new Map(view?.decisions.map((d) => [d.environment, d]));
  const environments = pipeline.spec.environments.map((env): EnvSummary => {
    const stored = pipeline.status?.environments?.[env.name];
    const records = stored?.targets ?? [];
    const { health, text } = healthOf(env.targets.length, records, view?.targets[env.name]);
    const decision = decisions.get(env.name);
    const wait =
      decision === undefined
        ? storedState(stored)
        : decisionState(decision, view?.policy?.[env.name], stored);
    return {
      name: env.name,
      revision: revisionOf(records),
      health,
      healthText: text,
      state: wait.text,
      tone: health === 'unhealthy' || health === 'unknown' ? 'fail' : wait.tone,
      waiting: wait.waiting,
      failed: wait.failed,
    };
  });
  const { appRef } = pipeline.spec;
  return {
    id: pipelineIdOf(pipeline),
    namespace: pipeline.metadata.namespace,
    name: pipeline.metadata.name,
    app: `${appRef.kind} ${appRef.name}`,
    environments,
    waiting: environments.some((e) => e.waiting),
    failed: environments.some((e) => e.failed),
    unhealthy: environments.some((e) => e.health === 'unhealthy' || e.health === 'unknown'),
  };
}

/** The revisions the records show: one when they agree, all of them when they do not. */
export function revisionOf(records: readonly TargetStatusRecord[]): string {
  const revisions = [...new Set(records.map((r) => r.revision).filter((r) => r !== undefined))];
  return revisions.map((r) => clip(r, 64)).join(', ');
}

/**
 * Health from the stored records; a target this replica cannot read (Unknown in its view) is
 * `unknown` rather than unhealthy, and one never read `unverified`.
 */
export function healthOf(
  expected: number,
  records: readonly TargetStatusRecord[],
  read: readonly TargetStatus[] | undefined,
): { health: Health; text: string } {
  const ready = records.filter((r) => r.ready).length;
  if (expected > 0 && ready === expected && records.length === expected)
    return { health: 'healthy', text: `${String(ready)}/${String(expected)} ready` };
  const unknown = read?.find((t) => t.health === 'Unknown');
  if (unknown !== undefined)
    return { health: 'unknown', text: `cannot read: ${clip(unknown.reason, 40)}` };
  const failing = records.find((r) => !r.ready && !(r.error ?? '').startsWith('NotVerified'));
  if (failing !== undefined) {
    const why = clip((failing.error ?? 'not ready').split(':')[0], 40);
    return { health: 'unhealthy', text: `${String(ready)}/${String(expected)} ready: ${why}` };
  }
  return { health: 'unverified', text: 'not verified yet' };
}

/** How many Pipelines wait for approval, have a failed promotion, have an unhealthy target. */
export interface FleetCounts {
  total: number;
  waiting: number;
  failed: number;
  unhealthy: number;
}

/** The counts over `summaries`. */
export function countsOf(summaries: Iterable<PipelineSummary>): FleetCounts {
  const counts = { total: 0, waiting: 0, failed: 0, unhealthy: 0 };
  for (const s of summaries) {
    counts.total += 1;
    if (s.waiting) counts.waiting += 1;
    if (s.failed) counts.failed += 1;
    if (s.unhealthy) counts.unhealthy += 1;
  }
  return counts;
}
