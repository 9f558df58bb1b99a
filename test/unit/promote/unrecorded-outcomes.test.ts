/**
 * An outcome whose write failed after the strategy ran is kept and written by later checks,
 * only over our own claim: the strategy never runs twice for it.
 */
import { describe, expect, it } from 'vitest';
import { pipelineIdOf } from '../../../src/pipeline/id.js';
import { executePromotion } from '../../../src/promote/promoter.js';
import { UnrecordedOutcomes } from '../../../src/promote/unrecorded-outcomes.js';
import type { PromotionStrategy } from '../../../src/promote/strategies/strategy.js';
import { FakePipelineWriter, statusWriterOver } from '../../support/fake-pipeline-writer.js';
import { promoteDecision, samplePipeline, T0 } from '../../support/pipeline-fixtures.js';

const stored = (writer: FakePipelineWriter) =>
  writer.peek('flux-system', 'podinfo')?.status?.environments?.staging?.promotion;

/** A claim, a strategy that ran once, and an outcome write that failed. */
async function unrecorded(writer: FakePipelineWriter) {
  let runs = 0;
  const strategy: PromotionStrategy = {
    name: 'counting',
    attemptTimeoutMs: 10_000,
    preview: () => Promise.resolve({ kind: 'unavailable', reason: 'Fake', message: 'a fake' }),
    run: () => {
      runs++;
      // The API goes away right after the strategy ran: the outcome write fails.
      writer.beforeNextWrite(() => {
        throw new Error('connect ECONNREFUSED');
      });
      return Promise.resolve({ ok: true, message: 'done' });
    },
  };
  const pipeline = writer.put(samplePipeline());
  const outcome = await executePromotion({
    status: statusWriterOver(writer),
    pipeline,
    decision: promoteDecision('staging', '1.1.0'),
    strategy,
    now: T0,
    instanceId: 'gw-a',
  });
  if (outcome.outcome !== 'Unrecorded') throw new Error(`outcome ${outcome.outcome}`);
  return { outcome, pipeline, runs: () => runs };
}

describe('UnrecordedOutcomes', () => {
  it('writes a kept outcome over our claim on the next check, without running anything', async () => {
    const writer = new FakePipelineWriter();
    const { outcome, pipeline, runs } = await unrecorded(writer);
    expect(stored(writer)?.phase).toBe('Claimed');
    const recorded: string[] = [];
    const kept = new UnrecordedOutcomes(statusWriterOver(writer), (o) => recorded.push(o));
    const id = pipelineIdOf(pipeline);
    kept.remember(id, {
      environment: 'staging',
      claim: outcome.claim,
      result: outcome.result,
      finishedAt: outcome.finishedAt,
    });
    // Still down: the outcome stays kept.
    writer.beforeNextWrite(() => {
      throw new Error('connect ECONNREFUSED');
    });
    expect(await kept.replay(id, pipeline)).toMatchObject({ written: 0, waiting: 1 });
    expect(kept.has(id)).toBe(true);
    expect(recorded).toEqual([]);
    // Back: written, forgotten, and the strategy ran once in all.
    expect(await kept.replay(id, pipeline)).toMatchObject({ written: 1, waiting: 0 });
    expect(kept.has(id)).toBe(false);
    expect(stored(writer)).toMatchObject({ phase: 'Succeeded', attempt: 1, claimedBy: 'gw-a' });
    expect(runs()).toBe(1);
    // The promotion is counted once its outcome lands (its first write was counted Unrecorded).
    expect(recorded).toEqual(['Promoted']);
  });

  it('forgets an outcome whose claim another replica has replaced', async () => {
    const writer = new FakePipelineWriter();
    const { outcome, pipeline } = await unrecorded(writer);
    const current = writer.peek('flux-system', 'podinfo');
    const theirs = { ...outcome.claim, attempt: 2, claimedBy: 'gw-b' };
    if (current?.status?.environments?.staging === undefined) throw new Error('no claim');
    current.status.environments.staging.promotion = theirs;
    writer.put(current);
    const kept = new UnrecordedOutcomes(statusWriterOver(writer));
    const id = pipelineIdOf(pipeline);
    kept.remember(id, {
      environment: 'staging',
      claim: outcome.claim,
      result: outcome.result,
      finishedAt: outcome.finishedAt,
    });
    expect(await kept.replay(id, pipeline)).toMatchObject({ written: 0, waiting: 0 });
    expect(kept.has(id)).toBe(false);
    expect(stored(writer)).toStrictEqual(theirs);
  });
});
