/**
 * The fleet page: every Pipeline the viewer may see, one row each, its environments as columns
 * (columns.ts), per environment the verified revision, health and what waits; counts at the
 * top; a search box and filters the page script applies in the browser. The rows are rendered
 * here and, on a change, sent alone over the live stream (live-frames.ts). Pure.
 */
import type { ColumnPlan } from './columns.js';
import { placeInColumns } from './columns.js';
import { html, join, type SafeHtml } from './html.js';
import { page } from './layout.js';
import type { UiAsset } from './assets.js';
import type { EnvSummary, FleetCounts, PipelineSummary } from './model.js';

/** What the fleet page is rendered from. */
export interface FleetPageInput {
  /** The rows (fleetRow), in id order. */
  rows: readonly SafeHtml[];
  plan: ColumnPlan;
  counts: FleetCounts;
  /** Where the live stream takes up (live-hub.ts): changes after this are sent. */
  since: string;
  assetUrl: (asset: UiAsset) => string;
  /** The shard this gateway serves (config `sharding.name`): its fleet is that shard's. */
  shard?: string | undefined;
  /** The release trains' section (train-rows.ts); absent: none. */
  trains?: SafeHtml;
}

/** The whole page. */
export function fleetPage(input: FleetPageInput): SafeHtml {
  const { plan, counts } = input;
  const body = html`<main
    id="main"
    data-testid="fleet"
    data-columns="${plan.key}"
    data-since="${input.since}"
  >
    <h1>
      Fleet${
        input.shard === undefined
          ? ''
          : html` <small data-testid="shard">shard ${input.shard}</small>`
      }
    </h1>
    ${countsBlock(counts)}
    <div class="controls" role="search">
      <label for="search">Search</label>
      <input
        id="search"
        type="search"
        data-testid="search"
        autocomplete="off"
        spellcheck="false"
        placeholder="namespace, name, revision or state"
      />
      <button type="button" class="clear" data-filter="" aria-pressed="true">All</button>
      <p id="shown" class="muted" aria-live="polite">${counts.total} of ${counts.total} shown</p>
    </div>
    ${input.trains ?? ''}
    <table class="fleet">
      <caption>
        Pipelines, their environments left to right: the revision each runs, its health, and what
        waits
      </caption>
      <thead>
        <tr>
          <th scope="col">Pipeline</th>
          ${plan.headers.map((h) => html`<th scope="col">${h}</th>`)}
        </tr>
      </thead>
      <tbody id="rows">
        ${join(input.rows)}
      </tbody>
    </table>
    ${counts.total === 0 ? html`<p class="empty">No Pipelines to show.</p>` : ''}
  </main>`;
  return page({ title: 'Fleet', script: 'fleet.js', body, assetUrl: input.assetUrl });
}

/** The counts as filter buttons: pressing one shows only those Pipelines. */
function countsBlock(counts: FleetCounts): SafeHtml {
  const button = (flag: string, count: number, words: string) =>
    html`<button type="button" class="count c-${flag}" data-filter="${flag}" aria-pressed="false">
      <span data-testid="count-${flag}">${count}</span> ${words}
    </button>`;
  return html`<section class="counts" aria-label="Counts">
    <p><span data-testid="count-total">${counts.total}</span> Pipelines</p>
    ${button('waiting', counts.waiting, 'waiting for approval')}
    ${button('failed', counts.failed, 'failed')}
    ${button('unhealthy', counts.unhealthy, 'unhealthy')}
  </section>`;
}

/** One Pipeline's row; its `data-flags` are what the filters and the counts look at. */
export function fleetRow(summary: PipelineSummary, plan: ColumnPlan): SafeHtml {
  const flags = [
    summary.waiting ? 'waiting' : '',
    summary.failed ? 'failed' : '',
    summary.unhealthy ? 'unhealthy' : '',
  ].filter((f) => f !== '');
  const places = placeInColumns(
    plan,
    summary.environments.map((e) => e.name),
  );
  const cells = places.map((index) => {
    const env = index === undefined ? undefined : summary.environments[index];
    return env === undefined ? html`<td class="none"></td>` : envCell(env, plan.positional);
  });
  const href = `/pipelines/${encodeURIComponent(summary.namespace)}/${encodeURIComponent(summary.name)}`;
  return html`<tr
    data-testid="pipeline-row"
    data-pipeline="${summary.id}"
    data-flags="${flags.join(' ')}"
  >
    <th scope="row"><a href="${href}">${summary.id}</a><small>${summary.app}</small></th>
    ${cells}
  </tr>`;
}

function envCell(env: EnvSummary, labelled: boolean): SafeHtml {
  const revision = env.revision === '' ? '—' : env.revision;
  return html`<td
    data-testid="env-cell"
    data-env="${env.name}"
    class="h-${env.health} t-${env.tone}"
  >
    ${labelled ? html`<b>${env.name}</b>` : ''}<span data-testid="env-revision" class="rev"
      >${revision}</span
    ><span class="health">${env.healthText}</span
    ><span data-testid="env-state" class="state">${env.state}</span>
  </td>`;
}
