/**
 * The view a status write computes when it starts: the latest reads on the catalog's latest
 * Pipeline (or the object a check wrote), nothing for a Pipeline gone or whose spec moved on.
 */
import { describe, expect, it } from 'vitest';
import { MGMT, reconcileRig, rigPipeline } from '../../support/reconcile-rig.js';

describe('ViewInputsReader', () => {
  it("shows the reads that arrived after the check, on the catalog's latest Pipeline", async () => {
    const rig = reconcileRig({ dev: '1.0.0', staging: '1.0.0', prod: '1.0.0' });
    await rig.reconciler.reconcile(rig.id);
    // dev moves on after the check, before the write starts; the write shows the newer read.
    rig.clusters.cluster(MGMT).release('dev', 'app', '1.1.0');
    await rig.verified.readAll(rig.catalog.targetsOf(rig.id));
    const inputs = rig.viewInputs.viewInputs(rig.id);
    expect(inputs?.pipeline).toEqual(rig.catalog.get(rig.id));
    expect(inputs?.targets.dev?.[0]).toMatchObject({ health: 'Healthy', revision: '1.1.0' });
    expect(inputs?.observedAt.dev?.[0]).toBe(rig.clock.now);
    const staging = inputs?.evaluation.decisions.find((d) => d.environment === 'staging');
    expect(staging).toMatchObject({ outcome: 'Promote', revision: '1.1.0' });
  });

  it('computes on an object the check wrote, which the catalog does not hold yet', () => {
    const rig = reconcileRig({ dev: '1.0.0', staging: '1.0.0', prod: '1.0.0' });
    const held = rig.catalog.get(rig.id);
    if (held === undefined) throw new Error('the rig loads its Pipeline');
    const written = {
      ...held,
      metadata: { ...held.metadata, resourceVersion: 'written-by-the-check' },
    };
    expect(rig.viewInputs.viewInputs(rig.id, written)?.pipeline).toBe(written);
  });

  it('is undefined for a Pipeline no longer loaded, or whose spec moved on', () => {
    const rig = reconcileRig({ dev: '1.0.0', staging: '1.0.0', prod: '1.0.0' });
    const first = rig.catalog.get(rig.id);
    if (first === undefined) throw new Error('the rig loads its Pipeline');
    expect(rig.viewInputs.viewInputs(rig.id, first)).toBeDefined();
    const next = rigPipeline();
    next.metadata.generation = 2;
    rig.catalog.upsert(rig.writer.put(next));
    expect(rig.viewInputs.viewInputs(rig.id, first)).toBeUndefined();
    expect(rig.viewInputs.viewInputs(rig.id)?.pipeline.metadata.generation).toBe(2);
    rig.catalog.remove(rig.id);
    expect(rig.viewInputs.viewInputs(rig.id)).toBeUndefined();
  });
});
