/**
 * Recording and lifting stop-the-line halts in status.halts, as changes handed to the one status
 * writer (resourceVersion precondition, re-applied on a conflict), so every replica sees a halt
 * from its next evaluation and a restart loses none. Expired halts hold nothing any more
 * (src/evaluate/halts.ts) and are pruned by whichever write comes next.
 */
import { haltEnd } from '../evaluate/halts.js';
import type { StatusChange } from '../kube/status-writer.js';
import type { HaltRecord, Pipeline, PipelineStatus } from '../pipeline/pipeline-resource.js';

/** The most halts one Pipeline keeps (the CRD's maxItems). */
export const MAX_HALTS = 64;

/** The halts still in force at `now` (any environment). */
export function liveHalts(halts: readonly HaltRecord[] | undefined, now: number): HaltRecord[] {
  return (halts ?? []).filter((h) => haltEnd(h) > now);
}

function withHalts(status: PipelineStatus | undefined, halts: HaltRecord[]): PipelineStatus {
  const { halts: _old, ...rest } = status ?? {};
  return halts.length === 0 ? rest : { ...rest, halts };
}

/**
 * Recorded: the halt was added. Duplicate: its id is recorded already. Full: MAX_HALTS halts
 * are in force. Stale: the Pipeline's spec changed and no longer has the halted environment.
 */
export type HaltVerdict = 'Recorded' | 'Duplicate' | 'Full' | 'Stale';

/**
 * Adding `halt` (expired halts pruned), re-applied to whatever is stored after a conflict;
 * `stillValid` (pure) must hold on the stored Pipeline (its environment still exists).
 */
export function haltChange(
  halt: HaltRecord,
  now: number,
  stillValid: (stored: Pipeline) => boolean,
): StatusChange<HaltVerdict> {
  return (stored) => {
    if (!stillValid(stored)) return { keep: 'Stale' };
    const live = liveHalts(stored.status?.halts, now);
    if (live.some((h) => h.id === halt.id)) return { keep: 'Duplicate' };
    if (live.length >= MAX_HALTS) return { keep: 'Full' };
    return { write: withHalts(stored.status, [...live, halt]), verdict: 'Recorded' };
  };
}

/** Lifted: the halt was removed (`lifted` is it). Absent: no halt in force has that id. */
export type LiftVerdict = { outcome: 'Lifted'; lifted: HaltRecord } | { outcome: 'Absent' };

/**
 * Removing the halt `id` (expired halts pruned too); `mayLift` (pure) judges the stored halt,
 * so a halt replaced under the same id by a conflict is judged again.
 */
export function liftChange(
  id: string,
  now: number,
  mayLift: (halt: HaltRecord) => boolean,
): StatusChange<LiftVerdict | { outcome: 'Forbidden' }> {
  return (stored) => {
    const live = liveHalts(stored.status?.halts, now);
    const lifted = live.find((h) => h.id === id);
    if (lifted === undefined) return { keep: { outcome: 'Absent' } };
    if (!mayLift(lifted)) return { keep: { outcome: 'Forbidden' } };
    const kept = live.filter((h) => h.id !== id);
    return { write: withHalts(stored.status, kept), verdict: { outcome: 'Lifted', lifted } };
  };
}
