/**
 * Part (g)'s lines and bars: the fleet page's render time and bytes, one update's time from
 * change to frame, and the ingress throughput with 50 open live streams beside none.
 */
import type { BarResult } from './report.js';
import { MIN_VIEWERS_RATIO, type ViewResult } from './ui.js';

/** The fleet page's gzip budget at 1,000 Pipelines (docs/ui.md, "Page budget"). */
export const MAX_FLEET_GZIP_BYTES = 150 * 1024;
/** Live updates within 1 s of a change. */
export const MAX_UPDATE_MS = 1_000;

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const ms = (value: number) => `${value.toFixed(1)} ms`;

/** The report's lines for part (g). */
export function viewLines(view: ViewResult): string[] {
  const { render, update, viewers } = view;
  const rounds = viewers.none.map(
    (none, i) =>
      `${(viewers.open[i] ?? 0).toFixed(0)} vs ${none.toFixed(0)} (${(viewers.ratios[i] ?? 0).toFixed(3)})`,
  );
  return [
    `(g) the web view at ${String(view.pipelines)} Pipelines:`,
    `  fleet page: every row rendered anew ${ms(render.rowsMs)}; served from the rendered rows (gzip included) median ${ms(render.pageMedianMs)}, p90 ${ms(render.pageP90Ms)}; ${kb(render.bytes)} raw, ${kb(render.gzipBytes)} gzip`,
    `  one update (median of ${String(update.samples)}): change -> frame written ${ms(update.serverMedianMs)} (p90 ${ms(update.serverP90Ms)}), of which the ${String(update.coalesceMs)} ms coalescing pause and ${ms(update.renderMedianMs)} rendering and writing; the client read it after ${ms(update.clientMedianMs)}`,
    `  ingress, events accepted/s with ${String(viewers.count)} open live streams vs none, per round: ${rounds.join('; ')}; median ratio ${viewers.medianRatio.toFixed(3)}, all rounds together ${viewers.totalRatio.toFixed(3)}${viewers.pinned ? ' (the gateway on a CPU of its own)' : ''}; the gateway's CPU per accepted event ${viewers.cpuUsPerEvent.open.toFixed(1)} µs with them, ${viewers.cpuUsPerEvent.none.toFixed(1)} µs without (medians; ${String(viewers.frames)} frames sent to the viewers meanwhile)`,
  ];
}

/** Part (g)'s bars. */
export function viewBars(view: ViewResult): BarResult[] {
  return [
    {
      name: `view: ingress with ${String(view.viewers.count)} live viewers / none`,
      measured: view.viewers.medianRatio.toFixed(3),
      bar: `>= ${String(MIN_VIEWERS_RATIO)}`,
      pass: view.viewers.medianRatio >= MIN_VIEWERS_RATIO,
    },
    {
      name: `view: fleet page gzip at ${String(view.pipelines)} Pipelines`,
      measured: kb(view.render.gzipBytes),
      bar: `<= ${kb(MAX_FLEET_GZIP_BYTES)}`,
      pass: view.render.gzipBytes <= MAX_FLEET_GZIP_BYTES,
    },
    {
      name: 'view: one update, change to frame written (p90)',
      measured: ms(view.update.serverP90Ms),
      bar: `<= ${String(MAX_UPDATE_MS)} ms`,
      pass: view.update.serverP90Ms <= MAX_UPDATE_MS,
    },
  ];
}
