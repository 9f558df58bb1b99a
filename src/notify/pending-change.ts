/**
 * What a WaitingForApproval event shows of the change it waits on: the pending promotion's
 * digest and summary, previewed when the event is sent (the recorded event names the preview's
 * path; the change itself may move with the base, so each attempt shows it as it is then).
 */
import type { NotificationEvent, PendingChange } from './notification-event.js';

/** The previews of pending promotions, as the notifier asks for them (wiring gives the gateway's). */
export interface PendingChanges {
  /**
   * The digest and summary of promoting `revision` to `environment` of `pipeline`, when that is
   * what is pending there now; undefined otherwise or when no preview can be made.
   */
  pendingChange(
    pipeline: { namespace: string; name: string },
    environment: string,
    revision: string,
  ): Promise<PendingChange | undefined>;
}

/**
 * `event` with its pending change, when it waits for an approval and a preview can be made now;
 * else `event` as it is (a preview that fails never stops a notification).
 */
export async function withPendingChange(
  event: NotificationEvent,
  changes: PendingChanges | undefined,
): Promise<NotificationEvent> {
  if (changes === undefined || event.type !== 'WaitingForApproval') return event;
  try {
    const change = await changes.pendingChange(event.pipeline, event.environment, event.revision);
    return change === undefined ? event : { ...event, preview: change };
  } catch {
    return event;
  }
}
