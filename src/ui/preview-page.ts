/**
 * The page of an environment's pending promotion: its summary, the digest an approval may carry,
 * each target's revision move and source, and the change itself (the pull request's diff, the
 * webhook body, the Event), as the API's preview gives it (docs/api.md). Static HTML under the
 * view's CSP: no script, no inline style; every string escaped and clipped.
 */
import type { StrategyChange } from '../preview/change-set.js';
import type { Preview } from '../preview/previewer.js';
import { clip, neutralize } from '../text/text.js';
import { html, type SafeHtml } from './html.js';
import { page } from './layout.js';
import type { UiAsset } from './assets.js';

/** The preview page of `preview`. */
export function previewPage(preview: Preview, assetUrl: (asset: UiAsset) => string): SafeHtml {
  const { namespace, name } = preview.pipeline;
  const back = `/pipelines/${namespace}/${name}`;
  return page({
    title: `${clip(preview.environment, 63)} of ${namespace}/${name}: the change`,
    assetUrl,
    body: html`<main id="main" data-testid="preview">
      <p><a href="${back}">${namespace}/${name}</a></p>
      <h1>
        What promoting ${clip(preview.environment, 63)} to ${clip(preview.revision, 64)} changes
      </h1>
      <p data-testid="preview-summary">${clip(preview.summary, 256)}</p>
      <p>
        Digest <code data-testid="preview-digest">${clip(preview.digest, 80)}</code>: an approval
        that carries it counts only while the change is this one (docs/approvals.md).
      </p>
      <h2>Targets</h2>
      <ul>
        ${preview.moves.map(
          (m) =>
            html`<li>
              <code>${clip(m.target, 256)}</code>: ${clip(m.from ?? 'unknown', 64)} →
              ${clip(m.to, 64)}${m.source === undefined ? '' : html` from ${sourceText(m.source)}`}
            </li>`,
        )}
      </ul>
      <h2>Change</h2>
      ${changeSection(preview.change)}
    </main>`,
  });
}

function sourceText(source: NonNullable<Preview['moves'][number]['source']>): string {
  const where = source.namespace === undefined ? source.name : `${source.namespace}/${source.name}`;
  const what = source.chart ?? source.path;
  return clip(`${source.kind} ${where}${what === undefined ? '' : ` (${what})`}`, 256);
}

function changeSection(change: StrategyChange): SafeHtml {
  switch (change.kind) {
    case 'pull-request':
      return html`<p>
          A pull request on <code>${clip(change.repository, 256)}</code> from branch
          <code>${clip(change.branch, 256)}</code> onto ${clip(change.baseBranch, 256)} at
          <code>${clip(change.baseCommit, 64)}</code>.
        </p>
        ${change.files.map(
          (f) =>
            html`<h3><code>${clip(f.path, 512)}</code></h3>
              <pre class="diff" data-testid="preview-diff">
${f.diff.split('\n').map(diffLine)}</pre>`,
        )}
        ${change.truncated ? html`<p class="muted">The diff is cut at 64 KiB.</p>` : ''}`;
    case 'webhook':
      return html`<p>
          A POST to the webhook endpoint ${clip(change.endpoint, 253)} with this body (its
          ${change.varies.join(' and ')} are set when it is sent):
        </p>
        <pre data-testid="preview-body">${neutralize(change.body)}</pre>`;
    case 'notification':
      return html`<p>
          A ${change.event.type} Event on the Pipeline, reason ${clip(change.event.reason, 128)}:
        </p>
        <pre data-testid="preview-event">${neutralize(change.event.message)}</pre>`;
    case 'none':
      return html`<p>The Pipeline names no promotion strategy here: nothing is written.</p>`;
    case 'unavailable':
      return html`<p>
        The change cannot be known now (${clip(change.reason, 64)}): ${clip(change.message, 256)}
      </p>`;
  }
}

/** One diff line, classed by kind so the stylesheet colours it. */
function diffLine(line: string): SafeHtml {
  const text = neutralize(line);
  const kind = line.startsWith('@@')
    ? 'hunk'
    : line.startsWith('+++') || line.startsWith('---')
      ? 'file'
      : line.startsWith('+')
        ? 'add'
        : line.startsWith('-')
          ? 'del'
          : 'ctx';
  return html`<span class="${kind}">${text}</span>`;
}
