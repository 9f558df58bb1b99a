/**
 * The approval gate of a Pipeline page's environment: where it stands, the change as previewed
 * when its wait began and a link to the change a pending promotion would make now, each authorization recorded (who, what they decided on which
 * revision, when, the statement id shortened with a copy button) and how to check the signed
 * statements offline. Raw signed statements are never shown (the API does not serve them
 * either): their id and the offline check are. Pure.
 */
import type { EnvironmentDecision } from '../evaluate/decisions.js';
import type { AuthorizationRecord, Pipeline } from '../pipeline/pipeline-resource.js';
import { clip } from '../text/text.js';
import { html, type SafeHtml } from './html.js';
import { MAX_LISTED, timeText } from './pipeline-sections.js';
import { idHtml, shortId } from './short-ids.js';

/** The approval gate of the environment at `index`: where it stands and who authorized what. */
export function gateSection(
  pipeline: Pipeline,
  index: number,
  decision: EnvironmentDecision | undefined,
): SafeHtml {
  const env = pipeline.spec.environments[index];
  if (env === undefined) return html``;
  const records = pipeline.status?.environments?.[env.name]?.approvals ?? [];
  const spec = env.promotion?.approval;
  if (spec === undefined && decision?.gate === undefined && records.length === 0) return html``;
  const standing =
    decision?.gate === undefined
      ? neededText(spec?.minApprovals ?? 1)
      : `${decision.gate.summary}${decision.revision === undefined ? '' : ` for ${clip(decision.revision, 64)}`}`;
  const shown = [...records].reverse().slice(0, MAX_LISTED);
  return html`<div data-testid="gate" class="gate">
    <h4>Approval gate</h4>
    <p>${standing}</p>
    ${waitPreview(pipeline, env.name)} ${previewLink(pipeline, env.name, decision)}
    ${shown.length === 0 ? html`<p class="muted">No approvals recorded.</p>` : approvalsTable(env.name, shown)}
    ${records.some((r) => r.statement !== undefined) ? verifyLine(pipeline) : ''}
  </div>`;
}

function approvalsTable(env: string, shown: readonly AuthorizationRecord[]): SafeHtml {
  return html`<div class="scroll" tabindex="0" role="region" aria-label="Authorizations of ${env}">
    <table class="approvals">
      <caption>
        Authorizations of ${env}, newest first
      </caption>
      <thead>
        <tr>
          <th scope="col">Who</th>
          <th scope="col">Decision</th>
          <th scope="col">When</th>
          <th scope="col">Statement id</th>
        </tr>
      </thead>
      <tbody>
        ${shown.map(approvalRow)}
      </tbody>
    </table>
  </div>`;
}

function verifyLine(pipeline: Pipeline): SafeHtml {
  const { namespace, name } = pipeline.metadata;
  return html`<p class="verify">
    Signed statements are kept in the Pipeline’s status. Check them offline, without trusting the
    gateway:
    <code>promotion-gateway approvals verify --config CONFIG --pipeline ${namespace}/${name}</code>
    (docs/approvals.md).
  </p>`;
}

/** The outcomes of a decision with a promotion pending, which a preview shows. */
const PENDING = new Set(['Promote', 'Waiting', 'WaitingApproval']);

/** A link to the change the pending promotion would make (preview-page.ts), when one is. */
function previewLink(
  pipeline: Pipeline,
  environment: string,
  decision: EnvironmentDecision | undefined,
): SafeHtml | '' {
  if (decision?.revision === undefined || !PENDING.has(decision.outcome)) return '';
  const { namespace, name } = pipeline.metadata;
  const href = `/pipelines/${namespace}/${name}/environments/${encodeURIComponent(environment)}/preview`;
  return html`<p>
    <a data-testid="preview-link" href="${href}"
      >What promoting ${shortId(clip(decision.revision, 256))} changes, and its digest</a
    >
  </p>`;
}

/**
 * The change as previewed when the wait for an approval began (`waitingApproval.preview`, the
 * same on every replica, what the WaitingForApproval notification told): its summary and digest.
 */
function waitPreview(pipeline: Pipeline, environment: string): SafeHtml | '' {
  const waiting = pipeline.status?.environments?.[environment]?.waitingApproval;
  const preview = waiting?.preview;
  if (preview === undefined) return '';
  return html`<p data-testid="wait-preview">
    When the wait began: ${clip(preview.summary, 512)}, digest
    <span class="rev">${idHtml(preview.digest, 'preview digest')}</span>
  </p>`;
}

function approvalRow(record: AuthorizationRecord): SafeHtml {
  const comment =
    record.comment === undefined ? '' : html`<br /><small>${clip(record.comment, 200)}</small>`;
  const how = record.statement === undefined ? record.kind : `${record.kind}, signed`;
  return html`<tr>
    <td class="who">${clip(record.principal, 128)} <small>(${how})</small>${comment}</td>
    <td>${record.decision} <span class="rev">${idHtml(record.revision, 'revision')}</span></td>
    <td>${timeText(record.time)}</td>
    <td class="rev">${idHtml(record.jti, 'statement id')}</td>
  </tr>`;
}

function neededText(count: number): string {
  return `${String(count)} ${count === 1 ? 'approval' : 'approvals'} needed`;
}
