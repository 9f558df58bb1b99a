/**
 * The view's `waitingApproval` record of one environment, applied to the stored one: when the
 * wait began, the preview it began with, and the approvers whose approval stopped counting as
 * their change moved. What a wait's notifications tell is never taken back while it waits. Pure.
 */
import type { EnvironmentStatus } from '../pipeline/pipeline-resource.js';
import { rfc3339Millis } from '../time/kube-time.js';
import type { WaitPreview } from './wait-previews.js';

/**
 * The view's waitingApproval, with `since` kept from the stored one while it waits for the same
 * revision (so a view that finds the same wait writes nothing) and stamped `now` when it begins.
 * Its preview is the one first recorded for the revision (what the wait's event told), else
 * the one this view was given for it, else none.
 */
export function waitingSince(
  computed: EnvironmentStatus['waitingApproval'],
  stored: EnvironmentStatus['waitingApproval'],
  now: number,
  given: (WaitPreview & { revision: string }) | undefined,
): EnvironmentStatus['waitingApproval'] {
  if (computed === undefined) return undefined;
  const same = stored?.revision === computed.revision;
  const since = same && stored.since !== undefined ? stored.since : rfc3339Millis(now);
  const preview =
    (same ? stored.preview : undefined) ??
    (given?.revision === computed.revision
      ? { digest: given.digest, summary: given.summary }
      : undefined);
  const changed = previewChangedSince(computed, same ? stored : undefined, now);
  return {
    revision: computed.revision,
    since,
    ...(changed.length === 0 ? {} : { previewChanged: changed }),
    ...(preview === undefined ? {} : { preview }),
  };
}

/**
 * The approvers of the waiting revision whose approval stopped counting as its change moved:
 * those recorded while it waits (a replica that does not know the change has moved takes none
 * back, so replicas never undo each other's writes), then those found now, stamped `now`. An
 * approver who approved the change again and saw it move again is a new entry (another digest).
 */
function previewChangedSince(
  computed: NonNullable<EnvironmentStatus['waitingApproval']>,
  stored: EnvironmentStatus['waitingApproval'],
  now: number,
): NonNullable<NonNullable<EnvironmentStatus['waitingApproval']>['previewChanged']> {
  const kept = [...(stored?.previewChanged ?? [])];
  for (const { principal, digest } of computed.previewChanged ?? []) {
    if (!kept.some((k) => k.principal === principal && k.digest === digest))
      kept.push({
        principal,
        ...(digest === undefined ? {} : { digest }),
        since: rfc3339Millis(now),
      });
  }
  // The newest 32: a wait that outlives many moves keeps telling the latest.
  return kept.slice(-32);
}
