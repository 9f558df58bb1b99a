/**
 * Part (f)'s bar (an idle fleet causes no status writes, even with two replicas) and
 * the lines it prints.
 */
import type { IdleResult, WriteResults } from './idle-types.js';
import type { BarResult } from './report.js';
import { table } from './report.js';

/** Fewest resync passes the window must hold for the bar to mean anything. */
export const MIN_WINDOW_PASSES = 2;

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const results = (w: WriteResults) =>
  `written ${String(w.written)}, conflict ${String(w.conflict)}, unchanged ${String(w.unchanged)}, contended ${String(w.contended)}`;

/** One result of status_writes_total over both replicas at the end of the start-up. */
const sum = (startup: IdleResult['startup'], result: keyof WriteResults) =>
  startup.replicas.reduce((total, r) => total + r.writes[result], 0);

/** Resync passes in the window, all replicas together. */
export function windowPasses(result: IdleResult): number {
  return Object.values(result.window.passes).reduce((a, b) => a + b, 0);
}

/**
 * The bar: no status write in the idle window (kube-sim's count of PUT + PATCH), with every
 * event accepted and at least MIN_WINDOW_PASSES passes made, so the window did exercise both.
 */
export function idleBar(result: IdleResult): BarResult {
  const w = result.window;
  const n = result.spec.fleet.pipelines.toLocaleString('en');
  return {
    name: `status writes per minute, idle fleet of ${n} Pipelines on 2 replicas`,
    measured: `${w.writesPerMinute.toFixed(1)}/min (${String(w.writes)} in ${s(w.ms)})`,
    bar: '= 0 after the start-up pass',
    pass:
      w.writes === 0 &&
      w.eventsAccepted === w.eventsSent &&
      w.eventsSent > 0 &&
      windowPasses(result) >= MIN_WINDOW_PASSES,
  };
}

/** One row per replica: leader, evaluated, start-up and window status_writes_total. */
function replicaTable(result: IdleResult): string {
  return table(
    ['replica', 'Lease', 'evaluated', 'start-up status_writes_total', 'window', 'window passes'],
    result.startup.replicas.map((r) => {
      const inWindow = result.window.replicaWrites[r.name];
      return [
        r.name + (r.name === result.window.eventsTo ? ' (events)' : ''),
        r.leader ? 'holder' : '-',
        String(r.evaluated),
        results(r.writes),
        inWindow === undefined ? '-' : results(inWindow),
        String(result.window.passes[r.name] ?? 0),
      ];
    }),
  );
}

/** What the part measured, for the console. */
export function idleLines(result: IdleResult): string[] {
  const { spec, startup, window: w } = result;
  const lines = [
    `idle fleet: ${String(spec.fleet.pipelines)} Pipelines x 3 environments x 2 targets over ` +
      `${String(spec.fleet.clusters)} clusters (ns per ${spec.fleet.layout}), 2 replicas, ` +
      `resync every ${s(spec.resyncIntervalMs)}; part took ${s(result.durationMs)} (fleet build ${s(result.buildMs)})`,
    `  start-up: ${String(startup.writes)} status writes (${startup.writesPerPipeline.toFixed(2)}/Pipeline: ` +
      `${String(sum(startup, 'written'))} written, ${String(sum(startup, 'conflict'))} answered 409), ` +
      `settled ${startup.settled ? '' : 'NOT '}after ${s(startup.ms)} from the replicas' fork`,
    `  window: ${s(w.ms)}, ${String(w.writes)} status writes (${w.writesPerMinute.toFixed(1)}/min), ` +
      `${String(windowPasses(result))} resync passes, ${String(w.eventsAccepted)}/${String(w.eventsSent)} ` +
      `no-news events accepted by ${w.eventsTo} (${w.eventsToLeader ? 'the' : 'not the'} Lease holder)`,
    replicaTable(result),
  ];
  const written = Object.entries(w.writtenPipelines);
  if (written.length > 0) {
    const list = written.slice(0, 10).map(([name, n]) => `${name}=${String(n)}`);
    lines.push(`  written in the window: ${String(written.length)} Pipelines: ${list.join(' ')}`);
  }
  if (w.example !== undefined) {
    lines.push(`  ${w.example.name} at the window's start: ${JSON.stringify(w.example.before)}`);
    lines.push(`  ${w.example.name} at its end: ${JSON.stringify(w.example.after)}`);
  }
  return lines;
}
