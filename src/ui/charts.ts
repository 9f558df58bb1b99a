/**
 * The two small charts of a Pipeline page, as inline SVG rendered on the server (no chart
 * library, no script): lead time per revision, stacked by environment, and promotions per week
 * with the failed ones on top. Colours come from the stylesheet's classes (the CSP allows no
 * inline style); each chart has a text title, and every bar its own. Pure.
 */
import { html, type SafeHtml } from './html.js';
import { humanDuration, leadMs, type LeadTimes, type WeekCount } from './lead-time.js';

const WIDTH = 360;
const LABEL = 90;
const BAR = 14;
const GAP = 6;

/** Horizontal bars, one per revision (the latest `max`), split at each environment. */
export function leadTimeChart(leads: LeadTimes, max = 10): SafeHtml {
  const rows = leads.revisions.slice(-max);
  const last = leads.environments.length - 1;
  const longest = Math.max(1, ...rows.map((r) => leadMs(r, last) ?? lastKnown(r) ?? 0));
  const scale = (ms: number) => ((WIDTH - LABEL - 50) * ms) / longest;
  const height = rows.length * (BAR + GAP) + GAP;
  const bars = rows.map((row, i) => {
    const y = GAP + i * (BAR + GAP);
    const segments = leads.environments.slice(1).map((env, k) => {
      const from = leadMs(row, k) ?? 0;
      const to = leadMs(row, k + 1);
      if (to === undefined) return '';
      const x = LABEL + scale(from);
      const w = Math.max(1, scale(to) - scale(from));
      return html`<rect
        class="seg seg-${k % 4}"
        x="${fixed(x)}"
        y="${y}"
        width="${fixed(w)}"
        height="${BAR}"
        ><title>
          ${row.revision}: ${env} ${humanDuration(to)} after ${leads.environments[0] ?? ''}
        </title></rect
      >`;
    });
    const total = lastKnown(row);
    const end = LABEL + scale(total ?? 0) + 4;
    return html`<text class="label" x="${LABEL - 6}" y="${y + BAR - 3}" text-anchor="end"
        >${clipLabel(row.revision)}</text
      >${segments}<text class="value" x="${fixed(end)}" y="${y + BAR - 3}"
        >${total === undefined ? '—' : humanDuration(total)}</text
      >`;
  });
  const title = `Lead time from ${leads.environments[0] ?? 'the first environment'} to each later environment, per revision`;
  return html`<svg
    class="chart"
    role="img"
    viewBox="0 0 ${WIDTH} ${Math.max(height, 20)}"
    width="${WIDTH}"
    height="${Math.max(height, 20)}"
    aria-label="${title}"
  >
    <title>${title}</title>
    ${bars}
  </svg>`;
}

/** Vertical bars, one per week, the failed promotions stacked on top of the others. */
export function weeklyChart(weeks: readonly WeekCount[]): SafeHtml {
  const height = 90;
  const base = height - 16;
  const most = Math.max(1, ...weeks.map((w) => w.promotions));
  const step = WIDTH / Math.max(1, weeks.length);
  const bars = weeks.map((week, i) => {
    const x = i * step + 2;
    const w = Math.max(2, step - 4);
    const ok = ((week.promotions - week.failed) * (base - 4)) / most;
    const bad = (week.failed * (base - 4)) / most;
    const day = new Date(week.start).toISOString().slice(5, 10);
    const words = `week of ${new Date(week.start).toISOString().slice(0, 10)}: ${week.promotions} promotions, ${week.failed} with a failed attempt`;
    return html`<g
      ><title>${words}</title
      ><rect
        class="bar-ok"
        x="${fixed(x)}"
        y="${fixed(base - ok)}"
        width="${fixed(w)}"
        height="${fixed(ok)}"
      ></rect
      ><rect
        class="bar-fail"
        x="${fixed(x)}"
        y="${fixed(base - ok - bad)}"
        width="${fixed(w)}"
        height="${fixed(bad)}"
      ></rect
      >${i % 3 === 0 ? html`<text class="label" x="${fixed(x)}" y="${height - 3}">${day}</text>` : ''}</g
    >`;
  });
  const title = 'Promotions per week (failed ones on top), the last 12 weeks';
  return html`<svg
    class="chart"
    role="img"
    viewBox="0 0 ${WIDTH} ${height}"
    width="${WIDTH}"
    height="${height}"
    aria-label="${title}"
  >
    <title>${title}</title>
    <line class="axis" x1="0" y1="${base}" x2="${WIDTH}" y2="${base}"></line>
    ${bars}
  </svg>`;
}

function lastKnown(row: LeadTimes['revisions'][number]): number | undefined {
  for (let i = row.verifiedAt.length - 1; i > 0; i--) {
    const ms = leadMs(row, i);
    if (ms !== undefined) return ms;
  }
  return undefined;
}

function fixed(n: number): string {
  return n.toFixed(1);
}

function clipLabel(text: string): string {
  return text.length <= 12 ? text : `${text.slice(0, 11)}…`;
}
