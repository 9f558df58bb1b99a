/**
 * The picture that opens a Pipeline page: its environments as boxes left to right, each with
 * the revision its targets run, their health and what it waits for (the fleet's words,
 * waits.ts), joined by arrows; the arrow into an environment is marked when a promotion to it
 * is in flight (claimed, rolling out, or its pull request open), waits at a gate, or failed,
 * and carries that revision. Plain HTML drawn by the stylesheet, rendered with the page body,
 * so it needs no script and the live stream updates it with the rest. Pure.
 */
import type { EnvironmentDecision } from '../evaluate/decisions.js';
import type { EnvironmentStatus, Pipeline } from '../pipeline/pipeline-resource.js';
import { html, type SafeHtml } from './html.js';
import type { EnvSummary } from './model.js';
import { idHtml } from './short-ids.js';

/** How the arrow into an environment is drawn. */
export type EdgeState = 'flight' | 'waiting' | 'failed' | 'idle';

/** The arrow into one environment: its state and the revision it carries, if any. */
export interface Edge {
  state: EdgeState;
  revision?: string;
}

/** Outcomes whose revision is on its way: being promoted, rolled back, or rolling out. */
const MOVING = new Set(['Promote', 'RollBack', 'AlreadyPromoted']);
const STOPPED = new Set(['Failed', 'Rejected']);

/** What the arrow into an environment shows, from its decision, record and words. */
export function edgeOf(
  decision: EnvironmentDecision | undefined,
  stored: EnvironmentStatus | undefined,
  summary: EnvSummary | undefined,
): Edge {
  const revision = decision?.revision ?? stored?.promotion?.revision;
  const carried = revision === undefined ? {} : { revision };
  if (inFlight(decision, stored)) return { state: 'flight', ...carried };
  if (summary?.failed === true || (decision !== undefined && STOPPED.has(decision.outcome)))
    return { state: 'failed', ...carried };
  if (summary?.tone === 'wait') return { state: 'waiting', ...carried };
  return { state: 'idle' };
}

/**
 * Whether a revision is on its way into the environment: the decision says it is promoted,
 * rolled back or rolling out, or (before this replica decided) the record holds a live claim,
 * or its pull request is open and the environment does not run the revision yet.
 */
function inFlight(
  decision: EnvironmentDecision | undefined,
  stored: EnvironmentStatus | undefined,
): boolean {
  const record = stored?.promotion;
  if (decision === undefined)
    return record?.phase === 'Claimed' || record?.pullRequest?.state === 'open';
  if (decision.outcome === 'UpToDate') return decision.reason !== 'Deployed';
  return MOVING.has(decision.outcome) || record?.pullRequest?.state === 'open';
}

const EDGE_WORDS: Readonly<Record<EdgeState, string>> = {
  flight: 'in flight',
  waiting: 'waits',
  failed: 'failed',
  idle: '',
};

/** The picture of `pipeline`, from the page's summaries and this replica's decisions. */
export function pipelinePicture(
  pipeline: Pipeline,
  summaries: readonly (EnvSummary | undefined)[],
  decisions: ReadonlyMap<string, EnvironmentDecision>,
): SafeHtml {
  const steps = pipeline.spec.environments.map((env, index) => {
    const stored = pipeline.status?.environments?.[env.name];
    const summary = summaries[index];
    const edge = index === 0 ? undefined : edgeOf(decisions.get(env.name), stored, summary);
    const from = pipeline.spec.environments[index - 1]?.name ?? '';
    return html`<li data-testid="picture-env" data-env="${env.name}">
      ${edge === undefined ? '' : edgeHtml(edge, from, env.name)}
      ${nodeHtml(env.name, stored, summary)}
    </li>`;
  });
  return html`<section id="picture" aria-labelledby="picture-h">
    <h2 id="picture-h">Promotion path</h2>
    <ol class="flow" data-testid="pipeline-picture">
      ${steps}
    </ol>
  </section>`;
}

function edgeHtml(edge: Edge, from: string, to: string): SafeHtml {
  const words = EDGE_WORDS[edge.state];
  const rev = edge.revision === undefined || edge.state === 'idle' ? '' : edge.revision;
  return html`<div
    class="edge e-${edge.state}"
    data-testid="picture-edge"
    data-state="${edge.state}"
    data-revision="${rev}"
  >
    <span class="vh">from ${from} to ${to}${words === '' ? '' : `: ${rev} ${words}`}</span>
    <span class="er" aria-hidden="true">${rev === '' ? '' : idHtml(rev, 'revision', false)}</span>
    <span class="line"></span>
    <span class="ew" aria-hidden="true">${words}</span>
  </div>`;
}

function nodeHtml(
  name: string,
  stored: EnvironmentStatus | undefined,
  summary: EnvSummary | undefined,
): SafeHtml {
  const revisions = [...new Set((stored?.targets ?? []).map((t) => t.revision))].filter(
    (r) => r !== undefined,
  );
  const shown =
    revisions.length === 0
      ? html`<span class="muted">no revision yet</span>`
      : revisions.map((r, i) => html`${i === 0 ? '' : ', '}${idHtml(r, 'revision', false)}`);
  return html`<div class="node t-${summary?.tone ?? 'muted'}">
    <p>
      <b>${name}</b>
      <span class="badge h-${summary?.health ?? 'unverified'}">${summary?.healthText ?? ''}</span>
    </p>
    <p class="rev" data-testid="picture-revision">${shown}</p>
    <p class="state" data-testid="picture-wait">${summary?.state ?? ''}</p>
  </div>`;
}
