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
 * known), who decided, for authorizations, and the pending change, for a wait's preview.
 */
export function eventFacts(event: NotificationEvent): Fact[] {
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

function targetsSummary(event: NotificationEvent): string {
  const count = event.targets.length;
  const known = event.targets.filter((t) => t.ready !== undefined);
  if (known.length === 0) return String(count);
  const ready = known.filter((t) => t.ready === true).length;
  return `${count} (${ready} ready)`;
}
