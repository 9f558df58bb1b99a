/**
 * The Lease holder's catch-up of the outboxes. A status write records the events it owes only
 * for the alerts its replica knows (alert-directory.ts), and a replica learns of a new alert
 * within a few seconds: a fact written in between (by a replica that did not know the alert
 * yet) would wait for the Pipeline's next write, which an idle Pipeline never makes. So on every
 * round the Lease holder, which lists the alerts itself, looks once at each version of each
 * Pipeline an alert selects and, when its status owes events its outbox lacks, records them
 * through the one status writer (a write that adds only them).
 */
import type { Pipeline, PipelineHead } from '../pipeline/pipeline-resource.js';
import { owedEvents, type OutboxPolicy } from './outbox-record.js';

/** What catching up needs. */
export interface CatchUpDeps {
  policy: OutboxPolicy;
  now: () => number;
  /** Writes the events `pipeline` owes (a status change re-applied to what is stored). */
  record: (pipeline: Pipeline) => Promise<void>;
}

/** Looks at each Pipeline version once; see the module comment. */
export class OutboxCatchUp {
  private readonly looked = new WeakMap<PipelineHead, true>();

  constructor(private readonly deps: CatchUpDeps) {}

  /**
   * Records what `head`'s Pipeline owes and lacks, once per version of it; resolves when done
   * (a failed write is tried again when the Pipeline changes or the next version is looked at).
   */
  async visit(
    head: PipelineHead,
    whole: (head: PipelineHead) => Pipeline | undefined,
  ): Promise<void> {
    if (this.looked.has(head)) return;
    this.looked.set(head, true);
    const pipeline = whole(head);
    if (pipeline === undefined) return;
    if (owedEvents(pipeline, this.deps.now(), this.deps.policy).length === 0) return;
    try {
      await this.deps.record(pipeline);
    } catch {
      // Looked at again with its next version, or by the next Lease holder.
      this.looked.delete(head);
    }
  }
}
