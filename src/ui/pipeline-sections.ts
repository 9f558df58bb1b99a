/**
 * The parts of the Pipeline page built from the stored records: the pull request and its link,
 * the holds, the promotions as a timeline, and lead time and frequency. The approval gate is
 * approval-gate.ts. Pure.
 */
import type {
  EnvironmentStatus,
  Pipeline,
  PromotionHistoryEntry,
  PromotionRecord,
} from '../pipeline/pipeline-resource.js';
import { redactUrls } from '../text/redact-url.js';
import { clip } from '../text/text.js';
import { parseTimestamp } from '../time/kube-time.js';
import { leadTimeChart, weeklyChart } from './charts.js';
import { html, type SafeHtml } from './html.js';
import { humanDuration, leadMs, leadTimes, promotionsPerWeek, totalsOf } from './lead-time.js';

/** Most revisions a page lists (the status keeps up to 20). */
export const MAX_LISTED = 20;

/**
 * A time as `<time>`: UTC text for people, RFC 3339 for machines and the page script. In a
 * narrow column it wraps between the date and the time of day, never inside either.
 */
export function timeText(at: string | number): SafeHtml {
  const ms = typeof at === 'number' ? at : parseTimestamp(at);
  if (ms === undefined || !Number.isFinite(ms)) return html`<span>${String(at)}</span>`;
  const iso = new Date(ms).toISOString();
  return html`<time datetime="${iso}"
    ><span>${iso.slice(0, 10)}</span> <span>${iso.slice(11, 19)} UTC</span></time
  >`;
}

/**
 * The link to a pull request, when its URL is a plain http(s) URL; any credentials in it are
 * left out (its userinfo, and credential parameters redacted), and any other scheme
 * (`javascript:`) is shown as text, never linked.
 */
export function safeLink(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
  parsed.username = '';
  parsed.password = '';
  return redactUrls(parsed.toString());
}

/** The latest promotion's pull request: its state and a link that opens it. */
export function pullRequestLine(record: PromotionRecord | undefined): SafeHtml {
  const request = record?.pullRequest;
  if (request === undefined) return html``;
  const href = safeLink(request.url);
  // Not linked (not http(s)): shown as text, still without any credential it holds.
  const label = href ?? clip(redactUrls(request.url), 200);
  const link =
    href === undefined
      ? html`<span data-testid="pull-request">${label}</span>`
      : html`<a
          data-testid="pull-request"
          data-state="${request.state}"
          href="${href}"
          rel="noopener noreferrer"
          >${label}</a
        >`;
  return html`<p class="pr">
    <b>Pull request</b> for ${clip(record?.revision, 64)} (${request.state}): ${link}
  </p>`;
}

/** The revisions an environment holds (rolled back, failed verification), not lifted. */
export function holdsLine(env: EnvironmentStatus | undefined): SafeHtml {
  const holds = (env?.holds ?? []).filter((h) => h.liftedAt === undefined);
  if (holds.length === 0) return html``;
  const items = holds.map(
    (h) =>
      html`<li>
        <b class="rev">${clip(h.revision, 64)}</b> held: ${h.reason} by ${clip(h.by, 128)}
        ${timeText(h.time)}
      </li>`,
  );
  return html`<ul class="holds" data-testid="holds">
    ${items}
  </ul>`;
}

/** Every promoted environment's promotions, newest first, as a timeline. */
export function historySection(pipeline: Pipeline): SafeHtml {
  const lanes = pipeline.spec.environments.slice(1).map((env) => {
    const entries = [...(pipeline.status?.environments?.[env.name]?.history ?? [])].reverse();
    return html`<li>
      <h3>${env.name}</h3>
      ${
        entries.length === 0
          ? html`<p class="muted">No promotions recorded.</p>`
          : html`<ol class="timeline">
              ${entries.map(historyEntry)}
            </ol>`
      }
    </li>`;
  });
  return html`<section id="history" data-testid="history" aria-labelledby="history-h">
    <h2 id="history-h">Promotions</h2>
    <ol class="lanes">
      ${lanes}
    </ol>
  </section>`;
}

function historyEntry(entry: PromotionHistoryEntry): SafeHtml {
  const outcome =
    entry.succeededTime !== undefined
      ? 'succeeded'
      : entry.failedTime !== undefined
        ? 'failed'
        : 'in progress';
  const attempts = entry.attempts === 1 ? '1 attempt' : `${String(entry.attempts)} attempts`;
  const failed =
    entry.failedTime === undefined
      ? ''
      : html`<br />first failed
          ${timeText(entry.failedTime)}${entry.failure === undefined ? '' : html`: ${clip(entry.failure, 256)}`}`;
  const succeeded =
    entry.succeededTime === undefined ? '' : html`<br />succeeded ${timeText(entry.succeededTime)}`;
  const mark = entry.rollback;
  const rollback =
    mark === undefined
      ? ''
      : html`<br /><span data-testid="rollback"
            >rollback from ${clip(mark.from, 64)} by ${clip(mark.by.join(', '), 256)}:
            ${clip(mark.reason, 256)}</span
          >`;
  return html`<li class="o-${outcome}" data-outcome="${outcome}">
    <b class="rev">${clip(entry.revision, 64)}</b> ${outcome}, ${attempts}${rollback}<br />started
    ${timeText(entry.startedTime)}${failed}${succeeded}
  </li>`;
}

/** Lead time per revision and promotions per week, charted and tabled. */
export function leadTimeSection(pipeline: Pipeline, now: number): SafeHtml {
  const leads = leadTimes(pipeline);
  const weeks = promotionsPerWeek(pipeline, now);
  const totals = totalsOf(weeks);
  const shown = leads.revisions.slice(-MAX_LISTED).reverse();
  const [first, ...later] = leads.environments;
  const share = `${String(Math.round(totals.failedShare * 100))}%`;
  return html`<section id="lead-time" data-testid="lead-time" aria-labelledby="lead-h">
    <h2 id="lead-h">Lead time and frequency</h2>
    ${
      shown.length === 0
        ? html`<p class="muted">
            No revision has been verified in ${first ?? 'the first environment'} yet.
          </p>`
        : html`<figure>
              ${leadTimeChart(leads)}
              <figcaption>
                Time from first verified in ${first ?? ''} to first verified in each later
                environment, the latest ${Math.min(10, shown.length)} revisions.
              </figcaption>
            </figure>
            <table class="leads">
              <caption>
                First verified, per revision and environment (newest first)
              </caption>
              <thead>
                <tr>
                  <th scope="col">Revision</th>
                  <th scope="col">${first ?? ''}</th>
                  ${later.map((e) => html`<th scope="col">${e}</th>`)}
                </tr>
              </thead>
              <tbody>
                ${shown.map(
                  (row) =>
                    html`<tr>
                      <td class="rev">${clip(row.revision, 64)}</td>
                      <td>
                        ${row.verifiedAt[0] === undefined ? '—' : timeText(row.verifiedAt[0])}
                      </td>
                      ${later.map((_, k) => {
                        const lead = leadMs(row, k + 1);
                        return html`<td>${lead === undefined ? '—' : humanDuration(lead)}</td>`;
                      })}
                    </tr>`,
                )}
              </tbody>
            </table>`
    }
    <figure>
      ${weeklyChart(weeks)}
      <figcaption>
        ${totals.promotions} promotions in the last 12 weeks, ${share} with a failed attempt.
      </figcaption>
    </figure>
  </section>`;
}
