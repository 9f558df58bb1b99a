/**
 * What the soak gate decides on (evaluate/soak.ts): since when each environment a soak waits on
 * has run its revision healthy, from the stored `healthySince` and target records checked
 * against this replica's reads (evaluate/healthy-since.ts).
 */
import type { PipelineCatalog } from '../catalog/catalog.js';
import type { CatalogTarget } from '../catalog/targets.js';
import type { EvaluationInput, TargetStatus } from '../evaluate/decisions.js';
import { healthySinceOf, type ReadStreak } from '../evaluate/healthy-since.js';
import { soakedUpstreams } from '../evaluate/soak.js';
import { pipelineIdOf } from '../pipeline/id.js';
import type { HealthySince, Pipeline } from '../pipeline/pipeline-resource.js';
import type { VerifiedTargets } from '../verify/verified-targets.js';

/** One replica's reads of a Pipeline's targets beyond their statuses, aligned like statusesFor. */
export interface ReadHistory {
  /** When each was read (ms); undefined = never. */
  readAt: Record<string, (number | undefined)[]>;
  /** Each target's run of healthy reads. */
  streaks: Record<string, (ReadStreak | undefined)[]>;
}

/** Where the evaluator finds a Pipeline's read history (the verified targets, by catalog). */
export interface ReadHistories {
  historyOf(pipeline: Pipeline): ReadHistory;
}

/** Each target's streak, aligned like statusesFor; undefined = never read. */
export function streaksOf(
  verified: Pick<VerifiedTargets, 'streak'>,
  pipeline: Pipeline,
  targets: readonly CatalogTarget[],
): Record<string, (ReadStreak | undefined)[]> {
  const out: Record<string, (ReadStreak | undefined)[]> = {};
  for (const env of pipeline.spec.environments) out[env.name] = [];
  for (const t of targets) (out[t.environment] ??= [])[t.index] = verified.streak(t);
  return out;
}

/** The read histories of `verified`, for the Pipelines of `catalog`. */
export function readHistories(
  verified: Pick<VerifiedTargets, 'streak' | 'readAt'>,
  catalog: Pick<PipelineCatalog, 'targetsOf'>,
): ReadHistories {
  return {
    historyOf: (pipeline) => {
      const targets = catalog.targetsOf(pipelineIdOf(pipeline));
      const readAt: Record<string, (number | undefined)[]> = {};
      for (const env of pipeline.spec.environments) readAt[env.name] = [];
      for (const t of targets) (readAt[t.environment] ??= [])[t.index] = verified.readAt(t);
      return { readAt, streaks: streaksOf(verified, pipeline, targets) };
    },
  };
}

/**
 * The evaluator's `soak` input: for each environment a soak waits on, its healthy-since from
 * the stored status and `history` (without one, each read counts from `now`). Empty when the
 * Pipeline has no soak, so Pipelines without one evaluate exactly as before.
 */
export function soakInputOf(
  pipeline: Pipeline,
  targets: Record<string, TargetStatus[]>,
  history: ReadHistories | undefined,
  now: number,
): Pick<EvaluationInput, 'soak'> {
  const upstreams = soakedUpstreams(pipeline.spec);
  if (upstreams.size === 0) return {};
  const reads = history?.historyOf(pipeline);
  const soak: Record<string, HealthySince | undefined> = {};
  for (const name of upstreams) {
    const stored = pipeline.status?.environments?.[name];
    soak[name] = healthySinceOf({
      statuses: targets[name] ?? [],
      readAt: reads?.readAt[name] ?? [],
      streaks: reads?.streaks[name] ?? [],
      records: stored?.targets ?? [],
      stored: stored?.healthySince,
      now,
    });
  }
  return { soak };
}
