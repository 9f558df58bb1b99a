/**
 * The Pipeline page: the picture of its path (pipeline-picture.ts), then its environments left
 * to right, each with its targets (cluster, namespace, verified revision, health, when last
 * verified; the app's kind and name in the table's caption), the decision and its reason
 * as a sentence, its policy gates, approval gate and pull request; then the promotions as a
 * timeline, and lead time and frequency. The body is re-rendered whole on a change and the page
 * script swaps the sections that differ. Pure.
 */
import type { EnvironmentDecision } from '../evaluate/decisions.js';
import type {
  Pipeline,
  PipelineTarget,
  TargetStatusRecord,
} from '../pipeline/pipeline-resource.js';
import { clip } from '../text/text.js';
import type { PipelineView } from '../reconcile/view.js';
import type { UiAsset } from './assets.js';
import { html, type SafeHtml } from './html.js';
import { page } from './layout.js';
import { policyWords } from './policy-words.js';
import { healthOf, summarize, type EnvSummary } from './model.js';
import { gateSection } from './approval-gate.js';
import { pipelinePicture } from './pipeline-picture.js';
import {
  historySection,
  holdsLine,
  leadTimeSection,
  pullRequestLine,
  timeText,
} from './pipeline-sections.js';
import { idHtml } from './short-ids.js';

/** What the page is rendered from. */
export interface PipelinePageInput {
  pipeline: Pipeline;
  view: PipelineView | undefined;
  /** The reader's clock (ms). */
  now: number;
  since: string;
  assetUrl: (asset: UiAsset) => string;
}

/** The whole page. */
export function pipelinePage(input: PipelinePageInput): SafeHtml {
  const { namespace, name } = input.pipeline.metadata;
  const { appRef } = input.pipeline.spec;
  const body = html`<main
    id="main"
    data-testid="pipeline-page"
    data-pipeline="${namespace}/${name}"
    data-since="${input.since}"
  >
    <nav class="crumbs" aria-label="Breadcrumb"><a href="/">Fleet</a> / ${namespace} / ${name}</nav>
    <h1>${namespace}/${name} <small>${appRef.kind} ${appRef.name}</small></h1>
    ${pipelineBody(input.pipeline, input.view, input.now)}
  </main>`;
  return page({
    title: `${namespace}/${name}`,
    script: 'pipeline.js',
    body,
    assetUrl: input.assetUrl,
  });
}

/** The part of the page that changes: what the live stream sends. */
export function pipelineBody(
  pipeline: Pipeline,
  view: PipelineView | undefined,
  now: number,
): SafeHtml {
  const summary = summarize(pipeline, view);
  const decisions = new Map(view?.decisions.map((d) => [d.environment, d]));
  const cards = pipeline.spec.environments.map((env, index) =>
    environmentCard({
      pipeline,
      index,
      summary: summary.environments[index],
      decision: decisions.get(env.name),
      view,
    }),
  );
  return html`<div id="pipeline-body">
    ${pipelinePicture(pipeline, summary.environments, decisions)}
    <section id="environments" aria-labelledby="environments-h">
      <h2 id="environments-h">Environments</h2>
      <ol class="envs">
        ${cards}
      </ol>
    </section>
    ${historySection(pipeline)} ${leadTimeSection(pipeline, now)}
    ${view?.evaluatedAt === undefined ? html`<p class="muted" id="evaluated">This replica has not evaluated the Pipeline yet; the records shown are the stored ones.</p>` : ''}
  </div>`;
}

interface CardArgs {
  pipeline: Pipeline;
  index: number;
  summary: EnvSummary | undefined;
  decision: EnvironmentDecision | undefined;
  view: PipelineView | undefined;
}

function environmentCard(args: CardArgs): SafeHtml {
  const { pipeline, index, decision, view } = args;
  const env = pipeline.spec.environments[index];
  if (env === undefined) return html``;
  const stored = pipeline.status?.environments?.[env.name];
  const records = stored?.targets ?? [];
  const { health, text } = healthOf(env.targets.length, records, view?.targets[env.name]);
  const line = policyWords(view?.policy?.[env.name]);
  const rows = env.targets.map((target, i) =>
    targetRow(target, records[i], view?.targets[env.name]?.[i]?.location.cluster),
  );
  const { appRef } = pipeline.spec;
  return html`<li
    class="env t-${args.summary?.tone ?? 'muted'}"
    data-testid="environment"
    data-env="${env.name}"
  >
    <h3>${env.name} <span class="badge h-${health}">${text}</span></h3>
    <p class="now">${args.summary?.state ?? ''}</p>
    ${decisionLine(decision)}
    ${line === '' ? '' : html`<p class="policy"><b>Policy</b>: ${line}</p>`}
    <div class="scroll" tabindex="0" role="region" aria-label="Targets of ${env.name}">
      <table class="targets">
        <caption>
          Targets of ${env.name}: ${appRef.kind} ${appRef.name}
        </caption>
        <thead>
          <tr>
            <th scope="col">Cluster</th>
            <th scope="col">Namespace</th>
            <th scope="col">Revision</th>
            <th scope="col">Health</th>
            <th scope="col">Last verified</th>
          </tr>
        </thead>
        <tbody>
          ${rows}
        </tbody>
      </table>
    </div>
    ${gateSection(pipeline, index, decision)} ${pullRequestLine(stored?.promotion)}
    ${holdsLine(stored)}
  </li>`;
}

const OUTCOME_WORDS: Readonly<Record<EnvironmentDecision['outcome'], string>> = {
  Source: 'Source',
  UpToDate: 'Up to date',
  Promote: 'Promoting',
  RollBack: 'Rolling back',
  AlreadyPromoted: 'Promoted',
  Waiting: 'Waiting',
  WaitingApproval: 'Waiting for approval',
  Rejected: 'Rejected',
  Failed: 'Failed',
  Unknown: 'Cannot decide',
  Drifted: 'Drifted',
};

/** The decision as a sentence: its outcome, the evaluator's message and reason. */
function decisionLine(decision: EnvironmentDecision | undefined): SafeHtml {
  if (decision === undefined)
    return html`<p data-testid="decision" class="decision muted">
      No decision yet from this replica.
    </p>`;
  const retry =
    decision.retryAt === undefined
      ? ''
      : html` The gateway looks again at ${timeText(decision.retryAt)}.`;
  return html`<p data-testid="decision" class="decision" data-outcome="${decision.outcome}">
    <b>${OUTCOME_WORDS[decision.outcome]}</b>: ${clip(decision.message, 600).replace(/\.$/, '')}.
    <span class="muted">(${decision.reason})</span>${retry}
  </p>`;
}

function targetRow(
  target: PipelineTarget,
  record: TargetStatusRecord | undefined,
  cluster: string | undefined,
): SafeHtml {
  const health =
    record === undefined
      ? 'not verified yet'
      : record.ready
        ? 'ready'
        : clip(record.error ?? 'not ready', 160);
  const observed = record?.observedTime;
  return html`<tr>
    <td>${cluster ?? target.clusterRef?.name ?? 'management'}</td>
    <td>${target.namespace}</td>
    <td class="rev">${idHtml(record?.revision, 'revision')}</td>
    <td class="${record?.ready === true ? 'ok' : 'bad'}">${health}</td>
    <td>${observed === undefined ? '—' : timeText(observed)}</td>
  </tr>`;
}
