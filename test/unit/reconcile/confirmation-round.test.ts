/**
 * The promotions a pass finds due are confirmed together, one read per (cluster,
 * scope) for all of them, however fast or slow the machine and the API servers are, and however
 * the reads and checks interleave; each is still decided on reads made after it was found due,
 * and on the newest read when one came in since.
 */
import { describe, expect, it } from 'vitest';
import { pipelineId } from '../../../src/pipeline/id.js';
import { ConfirmationRounds } from '../../../src/reconcile/confirmation-round.js';
import type { VerifiedTargets } from '../../../src/verify/verified-targets.js';
import { waveRig, type Pace, type WaveLayout } from '../../support/wave-rig.js';

const APPS = 20;
/** 80% of the applications roll out, as in the scale bench's wave. */
const ROLLED = 16;
/** The pass's LISTs end this long before the checks could start (a long pass at scale). */
const PASS_MS = 5_000;

const PACES: Record<string, Pace> = {
  fast: { checkMs: 0, readMs: 0, maxTurns: 0, concurrency: 32 },
  'busy machine': { checkMs: 3_000, readMs: 0, maxTurns: 3, concurrency: 4 },
  'slow API servers': { checkMs: 200, readMs: 1_000, maxTurns: 8, concurrency: 8 },
  'one check at a time, slow': { checkMs: 12_000, readMs: 100, maxTurns: 2, concurrency: 1 },
};
const LAYOUTS: WaveLayout[] = ['env', 'app'];
const CASES = LAYOUTS.flatMap((layout) =>
  Object.entries(PACES).map(([name, pace]) => ({ layout, name, pace })),
);

describe('a promotion wave after a pass', () => {
  it.each(CASES)(
    'costs one read per scope the due promotions depend on ($layout layout, $name)',
    async ({ layout, pace }) => {
      for (const seed of [1, 2, 3]) {
        const rig = waveRig(APPS, layout, true, seed);
        await rig.wave(0);
        rig.setPace(pace);
        rig.roll(ROLLED, '2.0.0');
        const wave = await rig.wave(PASS_MS);
        // dev's scope and staging's (per namespace, or cluster-wide per cluster); prod's is not
        // depended on by a promotion to staging.
        expect(wave).toEqual({ gets: 0, lists: 2, promoted: ROLLED });
        expect(rig.record('app-0', 'staging')).toMatchObject({ revision: '2.0.0', attempt: 1 });
        expect(rig.record(`app-${String(ROLLED)}`, 'staging')).toBeUndefined();
      }
    },
  );

  it('cost more reads the slower the checks when each confirmed alone (before the rounds)', async () => {
    const reads: Record<string, number> = {};
    for (const [name, pace] of Object.entries(PACES)) {
      const rig = waveRig(APPS, 'app', false);
      await rig.wave(0);
      rig.setPace(pace);
      rig.roll(ROLLED, '2.0.0');
      const wave = await rig.wave(PASS_MS);
      expect(wave.promoted).toBe(ROLLED);
      reads[name] = wave.gets + wave.lists;
    }
    expect(reads.fast).toBe(2);
    expect(reads['busy machine']).toBeGreaterThanOrEqual(8);
    expect(reads['one check at a time, slow']).toBe(2 * ROLLED);
  });

  it('reads nothing when the pass finds nothing due', async () => {
    const rig = waveRig(APPS, 'env');
    await rig.wave(0);
    rig.setPace(PACES['busy machine'] ?? PACES.fast!);
    expect(await rig.wave(PASS_MS)).toEqual({ gets: 0, lists: 0, promoted: 0 });
  });

  it('reads nothing again where the pass read within the freshness window', async () => {
    const rig = waveRig(APPS, 'env');
    await rig.wave(0);
    rig.roll(ROLLED, '2.0.0');
    expect(await rig.wave(1_000)).toEqual({ gets: 0, lists: 0, promoted: ROLLED });
  });
});

describe('what a confirmed promotion is decided on', () => {
  it('the newest read: a change read after the round is what gets promoted', async () => {
    const rig = waveRig(APPS, 'env');
    await rig.wave(0);
    rig.roll(ROLLED, '2.0.0');
    const wave = await rig.wave(PASS_MS, {
      beforeChecks: async () => {
        rig.roll(1, '3.0.0');
        // An event about app-0's dev arrives meanwhile: its hinted read is stored.
        const [dev] = rig.catalog.targetsOf(rig.idOf('app-0'));
        if (dev !== undefined) await rig.verified.read(dev);
      },
    });
    expect(wave.promoted).toBe(ROLLED);
    expect(rig.record('app-0', 'staging')).toMatchObject({ revision: '3.0.0' });
    expect(rig.record('app-1', 'staging')).toMatchObject({ revision: '2.0.0' });
  });

  it('nothing, when the round could not read what the promotions depend on', async () => {
    const rig = waveRig(APPS, 'app');
    await rig.wave(0);
    rig.roll(ROLLED, '2.0.0');
    const wave = await rig.wave(PASS_MS, {
      beforeRound: () => {
        rig.clusters.cluster('eu').failure = 'Unavailable';
      },
    });
    // The round's two LISTs; then each check reads its Unknown targets again (staging and prod,
    // on eu) as it would after any failed read, and promotes nothing.
    expect(wave).toEqual({ gets: APPS * 2, lists: 2, promoted: 0 });
    expect(rig.record('app-0', 'staging')).toBeUndefined();
  });
});

describe('ConfirmationRounds marks', () => {
  it('serve one check each, and only the Pipelines the round found due', async () => {
    const rig = waveRig(APPS, 'env');
    await rig.wave(0);
    rig.roll(ROLLED, '2.0.0');
    await rig.pass(PASS_MS);
    const since = rig.confirmations.take(rig.idOf('app-0'));
    expect(since).toBe(rig.clock.now() - 2_000);
    expect(rig.confirmations.take(rig.idOf('app-0'))).toBeUndefined();
    expect(rig.confirmations.take(rig.idOf(`app-${String(ROLLED)}`))).toBeUndefined();
  });

  it('count for nothing once older than the interval, or after a newer round', async () => {
    const rig = waveRig(APPS, 'env');
    await rig.wave(0);
    rig.roll(ROLLED, '2.0.0');
    await rig.pass(PASS_MS);
    rig.clock.advance(300_001);
    expect(rig.confirmations.take(rig.idOf('app-1'))).toBeUndefined();
    rig.roll(1, '1.0.0');
    await rig.pass(PASS_MS);
    // app-0 is no longer due: the newer round dropped its mark; app-2 is marked anew.
    expect(rig.confirmations.take(rig.idOf('app-0'))).toBeUndefined();
    expect(rig.confirmations.take(rig.idOf('app-2'))).toBe(rig.clock.now() - 2_000);
  });
});

describe('a large confirmation round', () => {
  it('yields to the event loop every 32 Pipelines, so a round over thousands never stalls it', async () => {
    let evaluated = 0;
    const rounds = new ConfirmationRounds({
      // Pipelines gone from the catalog: each is looked up, none due.
      catalog: {
        get: () => {
          evaluated += 1;
          return undefined;
        },
        targetsOf: () => [],
      },
      verified: {
        readAt: () => undefined,
        reread: () => Promise.resolve(),
      } as unknown as VerifiedTargets,
      now: () => 0,
      freshnessMs: 1_000,
      lifetimeMs: 60_000,
      // Never asked: no Pipeline is in the catalog.
      evaluator: {
        evaluate: () => {
          throw new Error('no Pipeline to evaluate');
        },
      },
    });
    // The first turn's end, and how many turns the event loop made while the round ran.
    let atFirstYield: number | undefined;
    setImmediate(() => (atFirstYield = evaluated));
    let turns = 0;
    let done = false;
    const tick = (): void => {
      turns += 1;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    const ids = Array.from({ length: 200 }, (_, i) =>
      pipelineId({ namespace: 'ns', name: `app-${String(i)}` }),
    );
    const report = await rounds.confirm(ids);
    done = true;
    expect(report.due).toBe(0);
    expect(evaluated).toBe(200);
    expect(atFirstYield).toBe(32);
    expect(turns).toBeGreaterThanOrEqual(6);
  });
});
