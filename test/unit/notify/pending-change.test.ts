/**
 * A WaitingForApproval event shows the change it waits on, as previewed when it is sent; every
 * other event goes as recorded, and a preview that fails or names another revision leaves the
 * event as it was.
 */
import { describe, expect, it } from 'vitest';
import type { NotificationEvent } from '../../../src/notify/notification-event.js';
import { withPendingChange, type PendingChanges } from '../../../src/notify/pending-change.js';
import { eventFacts } from '../../../src/notify/formats/people.js';
import { eventData } from '../../../src/notify/formats/event-names.js';

const CHANGE = { digest: `sha256:${'a'.repeat(64)}`, summary: 'prod: 6.5.0 -> 6.6.0 by Event' };

function event(type: NotificationEvent['type']): NotificationEvent {
  return {
    ...{ id: 'evt_1', type, time: '2026-12-07T10:00:00.000Z', environment: 'prod' },
    ...{ pipeline: { namespace: 'apps', name: 'podinfo' }, revision: '6.6.0' },
    ...{ reason: type, message: 'prod waits', severity: 'info', targets: [] },
  };
}

/** Pending changes that know prod's 6.6.0 and count the questions. */
function changes(answer: () => Promise<typeof CHANGE | undefined>) {
  const asked: string[] = [];
  const port: PendingChanges = {
    pendingChange: (pipeline, environment, revision) => {
      asked.push(`${pipeline.namespace}/${pipeline.name} ${environment} ${revision}`);
      return answer();
    },
  };
  return { port, asked };
}

describe('withPendingChange', () => {
  it('adds the pending change to a WaitingForApproval event, asking for its own revision', async () => {
    const { port, asked } = changes(() => Promise.resolve(CHANGE));
    const sent = await withPendingChange(event('WaitingForApproval'), port);
    expect(sent.preview).toEqual(CHANGE);
    expect(asked).toEqual(['apps/podinfo prod 6.6.0']);
    expect(eventData(sent).preview).toEqual(CHANGE);
    expect(eventFacts(sent)).toEqual(
      expect.arrayContaining([
        { label: 'Change', value: CHANGE.summary },
        { label: 'Digest', value: CHANGE.digest },
      ]),
    );
  });

  it('leaves every other event as recorded, asking nothing', async () => {
    const { port, asked } = changes(() => Promise.resolve(CHANGE));
    const recorded = event('PromotionSucceeded');
    expect(await withPendingChange(recorded, port)).toBe(recorded);
    expect(asked).toEqual([]);
  });

  it('sends the event without a change when none can be previewed, or the preview fails', async () => {
    const none = changes(() => Promise.resolve(undefined));
    expect(
      (await withPendingChange(event('WaitingForApproval'), none.port)).preview,
    ).toBeUndefined();
    const failing = changes(() => Promise.reject(new Error('forge down')));
    const sent = await withPendingChange(event('WaitingForApproval'), failing.port);
    expect(sent.preview).toBeUndefined();
    expect(eventData(sent)).not.toHaveProperty('preview');
  });
});
