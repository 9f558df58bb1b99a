/**
 * An edge back up the event path: a stored status showing a newer observation of a target
 * than this replica's read makes that target a hint again (`stale-status`), spaced like any hint,
 * so the replica reads it and then agrees with the status or has something newer to write.
 */
import type { PipelineCatalog } from '../catalog/catalog.js';
import type { HintSink } from '../hints/sinks.js';
import type { PipelineId } from '../pipeline/id.js';
import { plainKey } from '../pipeline/object-key.js';
import type { TargetPlace } from './view-change.js';
import type { StaleReads } from './view-sync.js';

/** StaleReads as hints about the stale targets, offered to the hint queue. */
export class StaleTargetHints implements StaleReads {
  constructor(
    private readonly catalog: Pick<PipelineCatalog, 'targetsOf'>,
    private readonly hints: HintSink,
  ) {}

  /** Offers a `stale-status` hint for each target of the Pipeline at one of `places`. */
  reread(id: PipelineId, places: readonly TargetPlace[]): void {
    for (const t of this.catalog.targetsOf(id)) {
      if (places.some((p) => p.environment === t.environment && p.index === t.index))
        this.hints.offer(plainKey(t.key), 'stale-status');
    }
  }
}
