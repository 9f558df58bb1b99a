/**
 * The sharded scale run's table and goals: what each shard's gateway measured, and the goals a
 * sharded fleet must meet: every gateway under 256 MB at its peak, and the fleet as
 * a whole as prompt and as frugal with reads as one gateway. Start-up time is shown, not
 * judged: here every shard's gateway shares the machine's cores, where each has its own pod.
 */
import { defaultConfig } from 'promotion-gateway';
import type { BarResult } from './report.js';
import { table } from './report.js';
import { podNote } from './scale-report.js';
import type { ShardedResult } from './scale-shards.js';

const MIB = 1024 * 1024;
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const mib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`;

function sizeOf(r: ShardedResult): string {
  return `${r.spec.pipelines.toLocaleString('en')} x ${String(r.spec.clusters)}`;
}

function layoutOf(r: ShardedResult): string {
  return r.spec.layout === 'env' ? 'ns per env' : 'ns per app';
}

/** The fleet as a whole, one line per run. */
export function shardedTable(results: readonly ShardedResult[]): string {
  return table(
    [
      'N x C',
      'layout',
      'shards (Pipelines each)',
      'all evaluated (all shards on this machine)',
      'start-up GETs',
      'event->read',
      'slowest pass',
      'wave: promotions, reads, time',
      'largest peak RSS',
      'largest live heap at end',
      'fleet RSS',
    ],
    results.map((r) => {
      const sizes = r.shards.map((x) => x.pipelines);
      const largest = r.shards.reduce((a, b) => (b.peakRssBytes > a.peakRssBytes ? b : a));
      return [
        sizeOf(r),
        layoutOf(r),
        `${String(r.shards.length)} (${String(Math.min(...sizes))}-${String(Math.max(...sizes))})`,
        s(Math.max(...r.shards.map((x) => x.evaluatedMs))),
        String(r.startupGets),
        `${String(r.eventToReadMs)} ms`,
        s(r.passMs),
        `${String(r.wavePromotions)}, ${String(r.waveReads)} (${(r.waveReads / Math.max(1, r.wavePromotions)).toFixed(2)}/promotion), ${s(r.waveMs)}`,
        `${mib(largest.peakRssBytes)} (${String(largest.pipelines)} Pipelines, ${podNote(largest.podLimitBytes)})`,
        mib(Math.max(...r.shards.map((x) => x.endHeapUsedBytes))),
        `${(r.fleetRssBytes / MIB).toFixed(0)} MiB`,
      ];
    }),
  );
}

/** Each shard's gateway, one line each. */
export function shardTable(r: ShardedResult): string {
  return table(
    [
      'shard',
      'Pipelines',
      'ready',
      'all evaluated',
      'peak RSS',
      'heap used at peak',
      'live heap at end',
    ],
    r.shards.map((x, k) => [
      `s${String(k)}`,
      String(x.pipelines),
      s(x.readyMs),
      s(x.evaluatedMs),
      `${mib(x.peakRssBytes)} (${podNote(x.podLimitBytes)})`,
      x.peakUsage === undefined ? '-' : mib(x.peakUsage.heapUsed),
      mib(x.endHeapUsedBytes),
    ]),
  );
}

/** The goals of a sharded fleet. */
export function shardedGoals(results: readonly ShardedResult[]): BarResult[] {
  const interval = defaultConfig().resync.intervalMs;
  return results.flatMap((r) => {
    const at = `${String(r.spec.pipelines)}x${String(r.spec.clusters)} ${r.spec.layout} in ${String(r.shards.length)} shards`;
    const perPromotion = r.waveReads / Math.max(1, r.wavePromotions);
    const peak = Math.max(...r.shards.map((x) => x.peakRssBytes));
    const pods = [...new Set(r.shards.map((x) => podNote(x.podLimitBytes)))].join(', ');
    return [
      {
        name: `${at}: start-up GETs of listed objects`,
        measured: String(r.startupGets),
        bar: '= 0',
        pass: r.startupGets === 0,
      },
      // SCALE_SHARDS_ONLY of a shard not serving the probe's Pipeline: no event was sent.
      ...(Number.isNaN(r.eventToReadMs)
        ? []
        : [
            {
              name: `${at}: event at readiness read within`,
              measured: `${String(r.eventToReadMs)} ms`,
              bar: '<= 1000 ms',
              pass: r.eventToReadMs <= 1000,
            },
          ]),
      {
        name: `${at}: wave reads per promotion`,
        measured: perPromotion.toFixed(2),
        bar: '<= 1.20',
        pass: perPromotion <= 1.2 && r.wavePromotions > 0,
      },
      {
        name: `${at}: wave over before the next pass`,
        measured: s(r.waveMs),
        bar: `< ${s(interval)} (default interval)`,
        pass: r.waveMs < interval,
      },
      {
        name: `${at}: every gateway's peak RSS (${pods})`,
        measured: `${(peak / 1e6).toFixed(0)} MB`,
        bar: '< 256 MB',
        pass: peak < 256e6,
      },
    ];
  });
}
