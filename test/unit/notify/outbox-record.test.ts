/**
 * The outbox: an event is decided once, in the status write that first records its fact, with
 * its whole body; a later status (the wait cleared by the approval, a target read again) never
 * takes it back or changes it; nothing is recorded that no alert selects, nor older than the
 * horizon; and the outbox stays bounded.
 */
import { describe, expect, it } from 'vitest';
import {
  MAX_OUTBOX_STREAM,
  outboxFacts,
  type OutboxPolicy,
  withOwedEvents,
} from '../../../src/notify/outbox-record.js';
import type { Pipeline, PipelineStatus } from '../../../src/pipeline/pipeline-resource.js';
import { samplePipeline, T0 } from '../../support/pipeline-fixtures.js';

const HORIZON = 86_400_000;
const ALL: OutboxPolicy = { horizonMs: HORIZON, wants: () => true };
const iso = (ms: number) => new Date(ms).toISOString();

/** The stored Pipeline after `status` was written at `at` with the owed events recorded. */
function write(stored: Pipeline, status: PipelineStatus, at: number, policy = ALL): Pipeline {
  return { ...stored, status: withOwedEvents(stored, status, at, policy) };
}

const waiting = (revision: string, since: number): PipelineStatus => ({
  environments: { prod: { waitingApproval: { revision, since: iso(since) } } },
});

describe('withOwedEvents', () => {
  it('records a wait when first written, and keeps it when the approval clears it', () => {
    const first = write(samplePipeline(), waiting('1.2.0', T0), T0);
    expect(outboxFacts(first).map((f) => `${f.environment} ${f.type} ${f.revision}`)).toEqual([
      'prod WaitingForApproval 1.2.0',
    ]);
    const approved = write(first, { ...first.status, environments: { prod: {} } }, T0 + 5_000);
    expect(outboxFacts(approved).map((f) => f.type)).toEqual(['WaitingForApproval']);
  });

  it("records a wait's preview as the wait began, linked to the view's page when its address is known", () => {
    const digest = `sha256:${'cd'.repeat(32)}`;
    const preview = { digest, summary: 'prod: 1.1.0 -> 1.2.0 by a Promote event' };
    const status: PipelineStatus = {
      environments: { prod: { waitingApproval: { revision: '1.2.0', since: iso(T0), preview } } },
    };
    const viewUrl = 'https://promotions.example.com';
    const linked = write(samplePipeline(), status, T0, { ...ALL, viewUrl });
    const { namespace, name } = linked.metadata;
    expect(outboxFacts(linked)[0]?.preview).toEqual({
      ...preview,
      url: `${viewUrl}/pipelines/${namespace}/${name}/environments/prod/preview`,
    });
    const plain = write(samplePipeline(), status, T0);
    expect(outboxFacts(plain)[0]?.preview).toEqual(preview);
    // A preview added to the status after the wait's event was recorded changes nothing sent.
    const without = write(samplePipeline(), waiting('1.2.0', T0), T0);
    const added = write(without, { ...status, outbox: without.status?.outbox }, T0 + 10_000);
    expect(outboxFacts(added)[0]?.preview).toBeUndefined();
    expect(outboxFacts(added)[0]?.message).toContain('its preview was not known');
  });

  it('never changes a recorded body: the targets are those of the write that recorded it', () => {
    const started: PipelineStatus = {
      environments: {
        prod: {
          targets: [
            {
              clusterAppRef: { apiVersion: 'v', kind: 'HelmRelease', name: 'podinfo' },
              ready: true,
              revision: '1.1.0',
            },
          ],
          history: [{ revision: '1.2.0', startedTime: iso(T0), attempts: 1 }],
        },
      },
    };
    const first = write(samplePipeline(), started, T0);
    const body = JSON.stringify(outboxFacts(first));
    const later = structuredClone(started);
    later.environments!.prod!.targets![0]!.revision = '1.2.0';
    const moved = write(first, { ...later, outbox: first.status?.outbox }, T0 + 60_000);
    expect(JSON.stringify(outboxFacts(moved).filter((f) => f.type === 'PromotionStarted'))).toBe(
      body,
    );
  });

  it('records a revision that runs again as events of their own (promoted again after a rollback)', () => {
    const run = (startedMs: number, rollback?: { from: string; by: string[]; reason: string }) => ({
      revision: '1.2.0',
      startedTime: iso(startedMs),
      attempts: 1,
      succeededTime: iso(startedMs + 1_000),
      ...(rollback === undefined ? {} : { rollback }),
    });
    const history = (entries: ReturnType<typeof run>[]): PipelineStatus => ({
      environments: { prod: { history: entries } },
    });
    const first = write(samplePipeline(), history([run(T0)]), T0 + 2_000);
    const rolledBack = { revision: '1.1.0', startedTime: iso(T0 + 10_000), attempts: 1 };
    const again = write(
      first,
      {
        ...history([run(T0), { ...rolledBack, succeededTime: iso(T0 + 11_000) }, run(T0 + 20_000)]),
        outbox: first.status?.outbox,
      },
      T0 + 22_000,
    );
    const succeeded = outboxFacts(again).filter(
      (f) => f.type === 'PromotionSucceeded' && f.revision === '1.2.0',
    );
    expect(succeeded.map((f) => [f.subject, f.at])).toEqual([
      ['', T0 + 1_000],
      ['run 2', T0 + 21_000],
    ]);
  });

  it('records what some alert selects only, and nothing past the horizon', () => {
    const none = { horizonMs: HORIZON, wants: () => false };
    expect(write(samplePipeline(), waiting('1.2.0', T0), T0, none).status?.outbox).toBeUndefined();
    const old = write(samplePipeline(), waiting('1.2.0', T0 - HORIZON - 1), T0);
    expect(old.status?.outbox).toBeUndefined();
  });

  it('lets go of events past the horizon and its margin, and keeps each stream bounded', () => {
    let pipeline = samplePipeline();
    for (let i = 0; i < MAX_OUTBOX_STREAM + 5; i++) {
      const status: PipelineStatus = {
        ...pipeline.status,
        environments: {
          prod: {
            history: [{ revision: `1.${String(i)}.0`, startedTime: iso(T0 + i), attempts: 1 }],
          },
        },
      };
      pipeline = write(pipeline, status, T0 + i);
    }
    const kept = outboxFacts(pipeline);
    expect(kept).toHaveLength(MAX_OUTBOX_STREAM);
    expect(kept.at(-1)?.revision).toBe(`1.${String(MAX_OUTBOX_STREAM + 4)}.0`);
    const dayLater = write(pipeline, { ...pipeline.status, environments: {} }, T0 + 2 * HORIZON);
    expect(dayLater.status?.outbox).toBeUndefined();
  });
});
