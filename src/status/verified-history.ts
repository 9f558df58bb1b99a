/**
 * status.environments[env].verified: when each revision was first verified in the environment,
 * every target Healthy at it, as the stored target records show (the latest of their
 * `observedTime`s: the moment the last target was seen there). Kept by the verified view (the
 * one writer of the targets' records) so the web view can tell lead times after a restart and
 * from any replica. Bounded: at most MAX_VERIFIED entries, oldest first, the oldest dropped.
 * The earliest observation wins: a recorded time only ever moves earlier, so two replicas agree
 * and a view that finds the same state changes nothing (no idle write). Pure.
 */
import type { EnvironmentStatus, TargetStatusRecord } from '../pipeline/pipeline-resource.js';
import { parseTimestamp, rfc3339Millis } from '../time/kube-time.js';

/**
 * status.environments[env].verified[i]: when the gateway first found every target of the
 * environment Healthy at `revision` (RFC 3339 with milliseconds; the earliest observation wins).
 */
export type VerifiedRecord = NonNullable<EnvironmentStatus['verified']>[number];

/** The most entries one environment keeps (the CRD's maxItems). */
export const MAX_VERIFIED = 20;

/**
 * The environment's verified list after its target records became `records`: unchanged (the
 * same array, so callers can tell) unless the records show a revision first verified here, or
 * verified earlier than recorded. Records that are not all ready at one revision, or lack
 * observation times, add nothing.
 */
export function verifiedAfter(
  stored: readonly VerifiedRecord[] | undefined,
  records: readonly TargetStatusRecord[],
): readonly VerifiedRecord[] | undefined {
  const seen = verifiedAt(records);
  if (seen === undefined) return stored;
  const list = stored ?? [];
  const index = list.findIndex((entry) => entry.revision === seen.revision);
  const known = index < 0 ? undefined : parseTimestamp(list[index]?.time);
  if (index >= 0 && known !== undefined && known <= seen.at) return stored;
  const others = index < 0 ? [...list] : list.filter((_, i) => i !== index);
  const entry: VerifiedRecord = { revision: seen.revision, time: rfc3339Millis(seen.at) };
  // Time order; the same time (never met in practice) by revision, so every replica agrees.
  const at = others.findIndex((e) => {
    const time = parseTimestamp(e.time) ?? 0;
    return time > seen.at || (time === seen.at && e.revision > seen.revision);
  });
  if (at < 0) others.push(entry);
  else others.splice(at, 0, entry);
  return others.slice(-MAX_VERIFIED);
}

/** The one revision every record runs ready, and when the last of them was seen so. */
function verifiedAt(
  records: readonly TargetStatusRecord[],
): { revision: string; at: number } | undefined {
  const [first] = records;
  const revision = first?.revision;
  if (revision === undefined || revision === '') return undefined;
  let at = -Infinity;
  for (const record of records) {
    const observed = parseTimestamp(record.observedTime);
    if (!record.ready || record.revision !== revision || observed === undefined) return undefined;
    at = Math.max(at, observed);
  }
  return { revision, at };
}
