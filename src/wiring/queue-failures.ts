/** How the gateway's work queues report failed runs in its log. */
import { failureSummary } from '../kube/errors.js';
import { StatusWritesHeld } from '../kube/status-writer.js';
import { logFailure, type GatewayLogger } from '../log.js';
import type { WorkQueueEvent } from '../queue/queue-model.js';

/**
 * Logs a queue run that threw (a failed status write, say) in one line, and a key dropped
 * after its last retry; runs that asked for a retry without an error are not failures. A run
 * refused because status writes are held is retried at debug level: the hold was logged once
 * at error level and /readyz says it, and in a fleet of thousands every check would warn.
 */
export function queueFailures<K>(logger: GatewayLogger, message: string, field: string) {
  return (event: WorkQueueEvent<K>): void => {
    if ((event.type !== 'retry' && event.type !== 'dropped') || event.error === undefined) return;
    const fields =
      event.type === 'retry'
        ? { [field]: event.key, retry: event.retry, retryInMs: event.delayMs }
        : { [field]: event.key, attempts: event.attempts, droppedAfterRetries: true };
    const held = event.error instanceof StatusWritesHeld;
    const level = event.type === 'dropped' ? 'error' : held ? 'debug' : 'warn';
    logFailure(logger, level, message, fields, {
      summary: failureSummary(event.error),
      err: event.error,
    });
  };
}
