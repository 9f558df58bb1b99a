/**
 * What a hint turns into: one read of the named object, stored for every Pipeline that
 * references it, then a re-check of each of those Pipelines.
 */
import type { PipelineCatalog } from '../catalog/catalog.js';
import type { HintedReads } from '../hints/hint-queue.js';
import type { PipelineTrigger } from '../hints/sinks.js';
import type { GatewayLogger } from '../log.js';
import { objectKeyId, type ObjectKey } from '../pipeline/object-key.js';
import type { ProcessResult } from '../queue/queue-model.js';
import type { VerifiedTargets } from './verified-targets.js';

/** What the hinted reader needs. */
export interface HintReaderDeps {
  catalog: PipelineCatalog;
  verified: VerifiedTargets;
  pipelines: PipelineTrigger;
  logger: GatewayLogger;
}

/**
 * The hint queue's next stage (HintedReads): 'retry' when the read found the object Unknown, so
 * the queue backs off and reads again; 'done' otherwise (also when no Pipeline references it).
 */
export class HintedReader implements HintedReads {
  constructor(private readonly deps: HintReaderDeps) {}

  /** Reads the object once, logs it, and asks for a re-check of every Pipeline referencing it. */
  async read(key: ObjectKey): Promise<ProcessResult> {
    const { catalog, verified } = this.deps;
    const ids = catalog.pipelinesFor(key);
    const wanted = objectKeyId(key);
    const target = ids
      .flatMap((id) => catalog.targetsOf(id))
      .find((t) => objectKeyId(t.key) === wanted);
    if (target === undefined) return 'done';
    const status = await verified.read(target);
    // The one info line of the event path: per verified read, not per event, so a burst of
    // identical events logs once (the events route logs each event at debug only).
    this.deps.logger.info(
      {
        cluster: key.cluster,
        kind: key.kind,
        namespace: key.namespace,
        name: key.name,
        health: status.health,
        reason: status.reason,
        revision: status.revision,
        pipelines: ids.length,
      },
      'hinted object verified',
    );
    for (const id of ids) this.deps.pipelines.requestPipeline(id, 'hint');
    return status.health === 'Unknown' ? 'retry' : 'done';
  }
}
