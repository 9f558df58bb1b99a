/**
 * The reconciler on fakes: what one run reads, decides, writes and asks of its queue next.
 */
import { describe, expect, it } from 'vitest';
import { pipelineId } from '../../../src/pipeline/id.js';
import { MGMT, reconcileRig, rigPipeline } from '../../support/reconcile-rig.js';

/** What a check asks once a promotion succeeded and its targets do not run it yet. */
const ROLLOUT_TIMEOUT = { requeueAfterMs: 1_800_000 };
describe('Reconciler.reconcile', () => {
  it('forgets a Pipeline that is no longer loaded and reads nothing', async () => {
    const rig = reconcileRig({ dev: '1.0.0', staging: '1.0.0', prod: '1.0.0' });
    const gone = pipelineId({ namespace: 'apps', name: 'other' });
    expect(await rig.reconciler.reconcile(gone)).toBe('done');
    expect(rig.clusters.reads()).toEqual({ gets: 0, lists: 0 });
    expect(rig.reconciler.view(gone)).toBeUndefined();
  });

  it('forgets a Pipeline when told (deleted, or moved to another shard), and says so', async () => {
    const rig = reconcileRig({ dev: '1.0.0', staging: '1.0.0', prod: '1.0.0' });
    await rig.reconciler.reconcile(rig.id);
    const told: string[] = [];
    rig.reconciler.onView((id) => told.push(id));
    rig.catalog.remove(rig.id);
    rig.reconciler.forget(rig.id);
    expect(rig.reconciler.view(rig.id)).toBeUndefined();
    expect(told).toEqual([rig.id]);
    rig.reconciler.forget(rig.id);
    expect(told).toEqual([rig.id]);
  });

  it('keeps no view from a check that was in flight when its Pipeline went', async () => {
    const rig = reconcileRig({ dev: '1.0.0', staging: '1.0.0', prod: '1.0.0' });
    const run = rig.reconciler.reconcile(rig.id);
    rig.catalog.remove(rig.id);
    rig.reconciler.forget(rig.id);
    await run;
    expect(rig.reconciler.view(rig.id)).toBeUndefined();
    expect(rig.reconciler.evaluated).toBe(0);
  });

  it('keeps one frozen list of decisions for Pipelines that decide alike', async () => {
    const rig = reconcileRig({ dev: '1.0.0', staging: '1.0.0', prod: '1.0.0' });
    const twin = rigPipeline();
    twin.metadata.name = 'twin';
    rig.catalog.upsert(rig.writer.put(twin));
    const twinId = pipelineId({ namespace: 'apps', name: 'twin' });
    await rig.reconciler.reconcile(rig.id);
    await rig.reconciler.reconcile(twinId);
    const decisions = rig.reconciler.view(rig.id)?.decisions;
    expect(decisions).toHaveLength(3);
    expect(rig.reconciler.view(twinId)?.decisions).toBe(decisions);
    expect(Object.isFrozen(decisions?.[0])).toBe(true);
  });

  it('reads each target once, writes status, and is done when every environment is up to date', async () => {
    const rig = reconcileRig({ dev: '1.0.0', staging: '1.0.0', prod: '1.0.0' });
    expect(await rig.reconciler.reconcile(rig.id)).toBe('done');
    expect(rig.clusters.reads().gets).toBe(3);
    expect(rig.writer.events).toEqual([]);
    const view = rig.reconciler.view(rig.id);
    expect(view?.decisions.map((d) => `${d.environment}:${d.outcome}`)).toEqual([
      'dev:Source',
      'staging:UpToDate',
      'prod:UpToDate',
    ]);
    const status = rig.writer.peek('apps', 'app')?.status;
    expect(status?.environments?.staging?.targets?.[0]).toMatchObject({
      ready: true,
      revision: '1.0.0',
    });
    // A second run reads nothing more: every target is stored and none is Unknown.
    expect(await rig.reconciler.reconcile(rig.id)).toBe('done');
    expect(rig.clusters.reads().gets).toBe(3);
  });

  it('promotes staging once dev runs a newer healthy revision, claiming before it acts', async () => {
    const rig = reconcileRig({ dev: '1.1.0', staging: '1.0.0', prod: '1.0.0' });
    // Promoted: looked at again when its rollout timeout (30m) passes, to tell a drift.
    expect(await rig.reconciler.reconcile(rig.id)).toEqual(ROLLOUT_TIMEOUT);
    expect(rig.record('staging')).toMatchObject({
      revision: '1.1.0',
      phase: 'Succeeded',
      attempt: 1,
      claimedBy: 'test',
    });
    expect(rig.writer.events.map((e) => e.annotations)).toEqual([
      { environment: 'staging', version: '1.1.0' },
    ]);
    expect(rig.outcomes).toEqual(['Promoted']);
    // Run again: the record says it is done, so nothing is promoted twice.
    expect(await rig.reconciler.reconcile(rig.id)).toEqual(ROLLOUT_TIMEOUT);
    expect(rig.writer.events).toHaveLength(1);
  });

  it('asks for a retry, and promotes nothing, while a target cannot be read', async () => {
    const rig = reconcileRig({ dev: '1.1.0', staging: '1.0.0', prod: '1.0.0' });
    rig.clusters.cluster(MGMT).failure = 'Forbidden';
    expect(await rig.reconciler.reconcile(rig.id)).toBe('retry');
    expect(rig.writer.events).toEqual([]);
    expect(rig.record('staging')).toBeUndefined();
    const staging = rig.reconciler.view(rig.id)?.decisions.find((d) => d.environment === 'staging');
    expect(staging).toMatchObject({ outcome: 'Unknown', reason: 'UpstreamUnknown' });
    // Unknown targets are read again on the next run, and the promotion then happens.
    rig.clusters.cluster(MGMT).failure = undefined;
    expect(await rig.reconciler.reconcile(rig.id)).toEqual(ROLLOUT_TIMEOUT);
    expect(rig.record('staging')).toMatchObject({ revision: '1.1.0', phase: 'Succeeded' });
  });

  it('returns a requeue for the end of a retry backoff instead of calling its queue', async () => {
    const rig = reconcileRig({ dev: '1.1.0', staging: '1.0.0', prod: '1.0.0' });
    rig.writer.eventError = new Error('events are down');
    expect(await rig.reconciler.reconcile(rig.id)).toEqual({ requeueAfterMs: 10_000 });
    expect(rig.record('staging')).toMatchObject({ phase: 'Failed', attempt: 1 });
    // Half-way through the backoff the wait left is what is asked for.
    rig.clock.now += 4_000;
    expect(await rig.reconciler.reconcile(rig.id)).toEqual({ requeueAfterMs: 6_000 });
    rig.writer.eventError = undefined;
    rig.clock.now += 6_000;
    expect(await rig.reconciler.reconcile(rig.id)).toEqual(ROLLOUT_TIMEOUT);
    expect(rig.record('staging')).toMatchObject({ phase: 'Succeeded', attempt: 2 });
  });

  it('re-reads every target after requireFullRead, and only then', async () => {
    const rig = reconcileRig({ dev: '1.0.0', staging: '1.0.0', prod: '1.0.0' });
    await rig.reconciler.reconcile(rig.id);
    expect(rig.clusters.reads().gets).toBe(3);
    rig.reconciler.requireFullRead(rig.id);
    await rig.reconciler.reconcile(rig.id);
    expect(rig.clusters.reads().gets).toBe(6);
    await rig.reconciler.reconcile(rig.id);
    expect(rig.clusters.reads().gets).toBe(6);
  });

  it('writes an outcome lost to an outage on the next check, never running the strategy again', async () => {
    const rig = reconcileRig({ dev: '1.1.0', staging: '1.0.0', prod: '1.0.0' });
    // The claim lands; then the API goes away before the outcome is written.
    rig.writer.beforeNextWrite(() => undefined);
    rig.writer.beforeNextWrite(() => {
      throw new Error('connect ECONNREFUSED');
    });
    expect(await rig.reconciler.reconcile(rig.id)).toBe('retry');
    expect(rig.record('staging')).toMatchObject({ revision: '1.1.0', phase: 'Claimed' });
    expect(rig.writer.events).toHaveLength(1);
    // Back: the next check writes the outcome the strategy already had.
    expect(await rig.reconciler.reconcile(rig.id)).toEqual(ROLLOUT_TIMEOUT);
    expect(rig.record('staging')).toMatchObject({
      revision: '1.1.0',
      phase: 'Succeeded',
      attempt: 1,
    });
    expect(rig.writer.events).toHaveLength(1);
  });
});
