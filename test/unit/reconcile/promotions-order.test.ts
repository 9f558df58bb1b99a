/**
 * One check promotes several environments one after another, each decided on the object the one
 * before it left: when another replica records a newer revision's success for prod while this
 * replica promotes staging, prod is not then claimed for the older revision this replica's first
 * evaluation wanted (which would roll prod back behind the newer success).
 */
import { describe, expect, it } from 'vitest';
import { reconcileRig } from '../../support/reconcile-rig.js';

describe('promotions of one check', () => {
  it('never claim an older revision over a success another replica recorded meanwhile', async () => {
    // staging runs 1.8.0, so this replica's first evaluation also wants prod at 1.8.0.
    const rig = reconcileRig({ dev: '1.9.0', staging: '1.8.0', prod: '1.7.0' });
    const now = rig.clock.now;
    // Staging's claim lands; before its outcome is written, the other replica records prod's
    // success of 1.9.0, which staging first ran after 1.8.0.
    rig.writer.beforeNextWrite(() => undefined);
    rig.writer.beforeNextWrite(() => {
      const stored = rig.writer.peek('apps', 'app')!;
      const prod = {
        revision: '1.9.0',
        lastAttemptedTime: new Date(now).toISOString().replace(/\.\d+Z$/, 'Z'),
        succeeded: true,
        phase: 'Succeeded' as const,
        attempt: 1,
        claimedBy: 'other',
        upstreamVerifiedTime: new Date(now + 60_000).toISOString(),
      };
      rig.writer.put({
        ...stored,
        status: {
          ...stored.status,
          environments: { ...stored.status?.environments, prod: { promotion: prod } },
        },
      });
    });
    await rig.reconciler.reconcile(rig.id);
    expect(rig.record('staging')).toMatchObject({ revision: '1.9.0', phase: 'Succeeded' });
    // prod keeps the newer success; nothing was claimed or sent for 1.8.0.
    expect(rig.record('prod')).toMatchObject({ revision: '1.9.0', claimedBy: 'other' });
    expect(rig.writer.events.map((e) => e.annotations)).toEqual([
      { environment: 'staging', version: '1.9.0' },
    ]);
    const prodDecision = rig.reconciler
      .view(rig.id)
      ?.decisions.find((d) => d.environment === 'prod');
    expect(prodDecision).toMatchObject({ outcome: 'Waiting', reason: 'NewerRevisionPromoted' });
  });
});
