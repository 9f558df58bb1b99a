/**
 * What the live streams carry, and the fleet as one viewer may see it. A fleet frame (`rows`)
 * holds the changed rows' HTML by Pipeline id (null: gone, or not to be seen), the viewer's
 * counts, and, when `complete`, every row the viewer may see plus the column headers (the page
 * drops rows not in it). A Pipeline frame (`pipeline`) holds the page body, or `gone`. Both
 * carry the change number as their SSE id. The page scripts apply them (web/live.js).
 */
import type { PipelineId } from '../pipeline/id.js';
import type { Viewer } from './ui-access.js';
import type { ColumnPlan } from './columns.js';
import type { FleetRows } from './fleet-rows.js';
import type { SafeHtml } from './html.js';
import { countsOf, type FleetCounts, type PipelineSummary } from './model.js';
import { sseFrame } from './sse.js';

/** The fleet as a viewer may see it. */
export interface VisibleFleet {
  rows: SafeHtml[];
  counts: FleetCounts;
  plan: ColumnPlan;
}

/** The rows `viewer` may see, in id order, and their counts. */
export function visibleFleet(rows: FleetRows, viewer: Viewer): VisibleFleet {
  const shown: SafeHtml[] = [];
  const summaries: PipelineSummary[] = [];
  for (const id of rows.ids()) {
    const entry = rows.entry(id);
    if (entry === undefined || !viewer.sees(id)) continue;
    shown.push(entry.html);
    summaries.push(entry.summary);
  }
  return { rows: shown, counts: countsOf(summaries), plan: rows.plan };
}

/** The counts over the rows `viewer` may see. */
export function visibleCounts(rows: FleetRows, viewer: Viewer): FleetCounts {
  const summaries: PipelineSummary[] = [];
  for (const id of rows.ids()) {
    const entry = rows.entry(id);
    if (entry !== undefined && viewer.sees(id)) summaries.push(entry.summary);
  }
  return countsOf(summaries);
}

/** What one fleet frame brings. */
export interface FleetChange {
  /** Every visible row is in it; the page drops the others and takes the headers. */
  complete: boolean;
  ids: readonly PipelineId[];
  /** The change number it brings the page up to. */
  token: string;
}

/** The fleet frame of `change` for `viewer`. */
export function fleetFrame(rows: FleetRows, viewer: Viewer, change: FleetChange): string {
  const entries: [string, string | null][] = [];
  for (const id of change.ids) {
    if (!viewer.sees(id)) continue;
    entries.push([id, rows.entry(id)?.html.text ?? null]);
  }
  const data = {
    complete: change.complete,
    ...(change.complete ? { plan: { key: rows.plan.key, headers: rows.plan.headers } } : {}),
    rows: entries,
    counts: visibleCounts(rows, viewer),
  };
  return sseFrame({ event: 'rows', id: change.token, data: JSON.stringify(data) });
}

/** The Pipeline frame: its body's HTML, or `gone` when it is no more (or not to be seen). */
export function pipelineFrame(body: string | undefined, token: string): string {
  const data = body === undefined ? { gone: true } : { html: body };
  return sseFrame({ event: 'pipeline', id: token, data: JSON.stringify(data) });
}
