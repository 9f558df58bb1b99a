/**
 * The scale section's table and goals. Size-independent goals (no start-up GET, an
 * event at readiness read within a second, at most 1.2 reads per promotion in the wave, the
 * wave over before the next pass at the default interval) are judged at every size; the
 * 10,000 x 50 goals only there.
 */
import { defaultConfig } from 'promotion-gateway';
import type { BarResult } from './report.js';
import { table } from './report.js';
import type { ScaleResult } from './scale.js';
import { paceOf } from './scale-pace.js';
import { quantity } from './pod-memory.js';

const MIB = 1024 * 1024;
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** The pod a gateway ran in: `pod 640Mi`, or `no pod` when it ran unconstrained. */
export function podNote(limitBytes: number | undefined): string {
  return limitBytes === undefined ? 'no pod' : `pod ${quantity(limitBytes)}`;
}

/** The layout, and the pace when it is not the normal one. */
function layoutOf(r: ScaleResult): string {
  const layout = r.spec.layout === 'env' ? 'ns per env' : 'ns per app';
  const pace = paceOf(r.spec.pace);
  return pace.name === 'normal' ? layout : `${layout}, ${pace.label}`;
}

/** What each run's RSS peak was made of: V8's heap (reserved, used), memory outside it. */
export function peakMemoryTable(results: readonly ScaleResult[]): string {
  const mib = (bytes: number | undefined) =>
    bytes === undefined ? '-' : `${(bytes / MIB).toFixed(1)} MiB`;
  return table(
    ['N x C', 'layout', 'RSS at peak', 'heap total', 'heap used', 'external', 'array buffers'],
    results.map((r) => [
      `${r.spec.pipelines.toLocaleString('en')} x ${String(r.spec.clusters)}`,
      layoutOf(r),
      mib(r.peakUsage?.rss),
      mib(r.peakUsage?.heapTotal),
      mib(r.peakUsage?.heapUsed),
      mib(r.peakUsage?.external),
      mib(r.peakUsage?.arrayBuffers),
    ]),
  );
}

/** The table of every size and layout measured. */
export function scaleTable(results: readonly ScaleResult[]): string {
  return table(
    [
      'N x C',
      'layout',
      'ready',
      'all evaluated (statuses written)',
      'start-up GETs',
      'event->read',
      'pass',
      'LISTs/pass/cluster',
      'pass CPU',
      'wave: promotions, reads, time',
      'gateway peak RSS',
      'live heap at end',
      'live bytes/target',
      'fleet RSS',
    ],
    results.map((r) => [
      `${r.spec.pipelines.toLocaleString('en')} x ${String(r.spec.clusters)}`,
      layoutOf(r),
      s(r.readyMs),
      `${s(r.evaluatedMs)} (${s(r.statusesWrittenMs)})`,
      String(r.startupGets),
      `${String(r.eventToReadMs)} ms`,
      s(r.passMs),
      String(r.listsPerPassMaxPerCluster),
      s(r.passCpuMs),
      `${String(r.wavePromotions)}, ${String(r.waveReads)} (${(r.waveReads / Math.max(1, r.wavePromotions)).toFixed(2)}/promotion), ${s(r.waveMs)}`,
      `${(r.peakRssBytes / MIB).toFixed(1)} MiB (${podNote(r.podLimitBytes)})`,
      `${(r.endHeapUsedBytes / MIB).toFixed(1)} MiB`,
      liveBytesPerTarget(r, results),
      `${(r.fleetRssBytes / MIB).toFixed(0)} MiB`,
    ]),
  );
}

/**
 * Live heap growth per target against the smallest size run with the same layout and pace
 * ('-' for that one): what each target costs above the fixed part.
 */
function liveBytesPerTarget(r: ScaleResult, results: readonly ScaleResult[]): string {
  const bytes = liveBytesAboveFixed(r, results);
  return bytes === undefined ? '-' : String(Math.round(bytes));
}

/** The bytes of live heap per target above the smallest run alike; undefined for that one. */
function liveBytesAboveFixed(r: ScaleResult, results: readonly ScaleResult[]): number | undefined {
  const same = results.filter(
    (o) => o.spec.layout === r.spec.layout && paceOf(o.spec.pace) === paceOf(r.spec.pace),
  );
  const smallest = same.reduce<ScaleResult | undefined>(
    (min, o) => (min === undefined || o.targets < min.targets ? o : min),
    undefined,
  );
  if (smallest === undefined || smallest.targets === r.targets) return undefined;
  return (r.endHeapUsedBytes - smallest.endHeapUsedBytes) / (r.targets - smallest.targets);
}

/** The bar for compact state: live heap per target above the fixed part. */
const LIVE_BYTES_PER_TARGET = 512;

function goal(name: string, measured: string, bar: string, pass: boolean): BarResult {
  return { name, measured, bar, pass };
}

/** The scale goals over `results`. */
export function scaleGoals(results: readonly ScaleResult[]): BarResult[] {
  const goals: BarResult[] = [];
  // The next periodic pass starts about one interval after this one (jitter aside).
  const interval = defaultConfig().resync.intervalMs;
  for (const r of results) {
    const pace = paceOf(r.spec.pace).name;
    const at = `${String(r.spec.pipelines)}x${String(r.spec.clusters)} ${r.spec.layout}${pace === 'normal' ? '' : ` ${pace}`}`;
    const perPromotion = r.waveReads / Math.max(1, r.wavePromotions);
    goals.push(
      goal(
        `${at}: start-up GETs of listed objects`,
        String(r.startupGets),
        '= 0',
        r.startupGets === 0,
      ),
      goal(
        `${at}: event at readiness read within`,
        `${String(r.eventToReadMs)} ms`,
        '<= 1000 ms',
        r.eventToReadMs <= 1000,
      ),
      goal(
        `${at}: wave reads per promotion`,
        perPromotion.toFixed(2),
        '<= 1.20',
        perPromotion <= 1.2 && r.wavePromotions > 0,
      ),
      goal(
        `${at}: wave over before the next pass`,
        s(r.waveMs),
        `< ${s(interval)} (default interval)`,
        r.waveMs < interval,
      ),
    );
    if (r.spec.pipelines < 10_000) continue;
    const perTarget = liveBytesAboveFixed(r, results);
    if (perTarget !== undefined)
      goals.push(
        goal(
          `${at}: live heap per target above the fixed part`,
          `${perTarget.toFixed(0)} B`,
          `<= ${String(LIVE_BYTES_PER_TARGET)} B`,
          perTarget <= LIVE_BYTES_PER_TARGET,
        ),
      );
    goals.push(
      goal(`${at}: full pass`, s(r.passMs), '< 5 s', r.passMs < 5000),
      goal(
        `${at}: gateway peak RSS (${podNote(r.podLimitBytes)})`,
        `${(r.peakRssBytes / 1e6).toFixed(0)} MB`,
        '< 256 MB',
        r.peakRssBytes < 256e6,
      ),
      goal(
        `${at}: start-up until every pipeline evaluated`,
        s(r.evaluatedMs),
        '< 10 s',
        r.evaluatedMs < 10_000,
      ),
    );
  }
  return goals;
}
