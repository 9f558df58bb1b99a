/**
 * The Drifted condition, from the environments' `drift` records a view writes: True while some
 * environment's targets run another revision than its last successful promotion, naming each
 * with both revisions; then False (NoDrift), kept so that the history shows; absent on a
 * Pipeline that never drifted. Pure.
 */
import type {
  Condition,
  DriftRecord,
  EnvironmentStatus,
  Pipeline,
} from '../pipeline/pipeline-resource.js';
import { display, truncate } from '../text/text.js';
import { rfc3339 } from '../time/kube-time.js';
import { ConditionTypes, MaxTargetError } from './compute-status.js';

/** Reasons of Drifted: True while an environment runs another revision than promoted, then False. */
export const DriftedReasons = { Drifted: 'RevisionDrifted', None: 'NoDrift' } as const;

/** The Drifted condition for `environments` as they will be written, or undefined (never drifted). */
export function driftedCondition(
  pipeline: Pipeline,
  environments: Readonly<Record<string, EnvironmentStatus>>,
  now: number,
): Condition | undefined {
  const type = ConditionTypes.Drifted;
  const drifted = pipeline.spec.environments.flatMap((env) => {
    const drift = environments[env.name]?.drift;
    return drift === undefined ? [] : [describe(env.name, drift)];
  });
  const stored = pipeline.status?.conditions?.find((c) => c.type === type);
  if (drifted.length === 0 && stored === undefined) return undefined;
  const status = drifted.length === 0 ? 'False' : 'True';
  const draft =
    drifted.length === 0
      ? { reason: DriftedReasons.None, message: 'Every environment runs what was promoted to it' }
      : {
          reason: DriftedReasons.Drifted,
          message: truncate(drifted.join('; '), MaxTargetError),
        };
  const generation = pipeline.metadata.generation;
  return {
    type,
    status,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
    lastTransitionTime: stored?.status === status ? stored.lastTransitionTime : rfc3339(now),
    ...draft,
  };
}

function describe(env: string, drift: DriftRecord): string {
  const running =
    drift.running.length === 0 ? 'no revision' : drift.running.map((r) => display(r)).join(', ');
  const history = drift.arrived ? 'it ran it, then left it' : 'it never ran it';
  return `${env} runs ${running}, not ${display(drift.promoted)} promoted there (${history})`;
}
