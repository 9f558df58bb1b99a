/**
 * pendingPipelines: what a recovery of the management API re-checks at once. A Claimed record
 * (or one of a phase this version does not know, which the retry policy treats as Claimed), or
 * a latest evaluation that promotes or waits; not a Pipeline that is up to date or done.
 */
import { describe, expect, it } from 'vitest';
import type { EnvironmentOutcome } from '../../../src/evaluate/decisions.js';
import { pipelineIdOf, type PipelineId } from '../../../src/pipeline/id.js';
import type { Pipeline, PromotionRecord } from '../../../src/pipeline/pipeline-resource.js';
import { pendingPipelines } from '../../../src/reconcile/pending.js';
import type { PipelineView } from '../../../src/reconcile/view.js';
import { samplePipeline } from '../../support/pipeline-fixtures.js';

function withRecord(name: string, record?: Partial<PromotionRecord>): Pipeline {
  const base = samplePipeline();
  const promotion: PromotionRecord = {
    revision: '6.6.0',
    succeeded: false,
    lastAttemptedTime: '2026-11-21T10:00:00Z',
    ...record,
  };
  return {
    ...base,
    metadata: { ...base.metadata, name },
    ...(record === undefined ? {} : { status: { environments: { staging: { promotion } } } }),
  };
}

function view(pipeline: Pipeline, outcome: EnvironmentOutcome): [PipelineId, PipelineView] {
  const { namespace, name } = pipeline.metadata;
  const decision = { environment: 'staging', outcome, reason: outcome, message: '' };
  return [pipelineIdOf(pipeline), { namespace, name, targets: {}, decisions: [decision] }];
}

describe('pendingPipelines', () => {
  it('picks Claimed (or unknown-phase) records and Promote or Waiting decisions only', () => {
    const claimed = withRecord('claimed', { phase: 'Claimed' });
    const newer = withRecord('newer-phase', { phase: 'Paused' as PromotionRecord['phase'] });
    const succeeded = withRecord('succeeded', { phase: 'Succeeded', succeeded: true });
    const promoting = withRecord('promoting');
    const waiting = withRecord('waiting');
    const upToDate = withRecord('up-to-date');
    const neverChecked = withRecord('never-checked');
    const views = new Map([
      view(succeeded, 'AlreadyPromoted'),
      view(promoting, 'Promote'),
      view(waiting, 'Waiting'),
      view(upToDate, 'UpToDate'),
    ]);
    const all = [claimed, newer, succeeded, promoting, waiting, upToDate, neverChecked];
    expect(pendingPipelines(all, views)).toEqual(
      [claimed, newer, promoting, waiting].map(pipelineIdOf),
    );
  });
});
