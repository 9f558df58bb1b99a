/**
 * What the chat formats (Slack, Teams) show of an event: a headline, the message and a few
 * labelled facts, all from the event (never from the alert's Secret), in the same order for
 * both so that the two read alike.
 */
import type { NotificationEvent } from '../notification-event.js';

/** One labelled fact, e.g. `Environment: staging`. */
export interface Fact {
  label: string;
  value: string;
}

/**
 * The facts of `event`: pipeline, environment and revision (when there are: an event about the
 * whole Pipeline has neither), reason, the targets' count (with how many are ready, when
 * known), who decided, for authorizations, and the pending change, for a wait's preview; for a
 * train's event, the train, its combination and what failed or stopped instead.
 */
export function eventFacts(event: NotificationEvent): Fact[] {
  if (event.train !== undefined) return trainFacts(event, event.train);
  const { namespace, name } = event.pipeline;
  const facts: Fact[] = [{ label: 'Pipeline', value: `${namespace}/${name}` }];
  if (event.environment !== '') facts.push({ label: 'Environment', value: event.environment });
  if (event.revision !== '') facts.push({ label: 'Revision', value: event.revision });
  facts.push({ label: 'Reason', value: event.reason });
  facts.push({ label: 'Targets', value: targetsSummary(event) });
  if (event.principal !== undefined) {
    const decision = event.decision === undefined ? '' : ` (${event.decision})`;
    facts.push({ label: 'By', value: `${event.principal}${decision}` });
  }
  if (event.preview !== undefined) {
    facts.push({ label: 'Change', value: event.preview.summary });
    facts.push({ label: 'Preview digest', value: event.preview.digest });
    if (event.preview.url !== undefined) facts.push({ label: 'Preview', value: event.preview.url });
  }
  return facts;
}

/** A train's event: the train, environment, combination, members, and what failed or stopped. */
function trainFacts(
  event: NotificationEvent,
  train: NonNullable<NotificationEvent['train']>,
): Fact[] {
  const { namespace, name } = event.pipeline;
  const members = Object.entries(train.members).map(([m, revision]) => `${m} ${revision}`);
  const facts: Fact[] = [
    { label: 'Train', value: `${namespace}/${name}` },
    { label: 'Environment', value: event.environment },
    { label: 'Combination', value: train.digest },
    { label: 'Members', value: members.join(', ') },
    { label: 'Reason', value: event.reason },
  ];
  for (const failed of train.failed ?? [])
    facts.push({ label: 'Failed', value: `${failed.member} ${failed.revision}: ${failed.reason}` });
  if ((train.stopped ?? []).length > 0)
    facts.push({ label: 'Stopped', value: (train.stopped ?? []).join(', ') });
  if ((train.waitingFor ?? []).length > 0)
    facts.push({ label: 'Waiting for', value: (train.waitingFor ?? []).join(', ') });
  return facts;
}

function targetsSummary(event: NotificationEvent): string {
  const count = event.targets.length;
  const known = event.targets.filter((t) => t.ready !== undefined);
  if (known.length === 0) return String(count);
  const ready = known.filter((t) => t.ready === true).length;
  return `${count} (${ready} ready)`;
}
