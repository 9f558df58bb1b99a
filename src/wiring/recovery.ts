/**
 * What the gateway does when the management API answers again after failing (the Pipeline
 * watch connects again, or leader election takes the Lease or gets an answer again): the
 * Pipelines a check may move on are checked at once, so that a claimed promotion does not sit
 * on a backoff grown during the outage.
 */
import type { PipelineQueue } from '../hints/pipeline-queue.js';
import type { Reconciler } from '../reconcile/reconciler.js';
import type { LeaseRecovery } from '../leadership/leadership.js';
import type { Runtime } from './runtime.js';

/** What noticed that the management API answers again. */
export type RecoveryCause = LeaseRecovery | 'watch-resumed';

/**
 * The recovery action: every pending Pipeline (reconciler.pendingPipelines) and every one
 * backing off after a failed check is re-checked at once, its backoff forgotten.
 */
export function recoveryRechecks(
  rt: Pick<Runtime, 'logger'>,
  loop: {
    reconciler: Pick<Reconciler, 'pendingPipelines'>;
    pipelines: Pick<PipelineQueue, 'recheckNow'>;
  },
): (cause: RecoveryCause) => void {
  return (cause) => {
    const hurried = loop.pipelines.recheckNow(loop.reconciler.pendingPipelines());
    if (hurried.size === 0) return;
    rt.logger.info(
      { cause, pipelines: hurried.size },
      'management API answering: re-checking waiting pipelines at once',
    );
  };
}
