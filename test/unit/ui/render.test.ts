/**
 * The view's pure renderers: every value from a Pipeline is escaped (a revision, a reason, a
 * principal or a message holding `<script>` renders as inert text), links are only ever plain
 * http(s) without credentials, raw signed statements never appear, and the fleet page of 1,000
 * Pipelines stays within its stated weight (gzip <= 150 KB; scripts <= 20 KB; CSS <= 10 KB).
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { loadAssets } from '../../../src/ui/assets.js';
import { columnPlan } from '../../../src/ui/columns.js';
import { fleetPage, fleetRow } from '../../../src/ui/fleet-page.js';
import { escapeHtml, html } from '../../../src/ui/html.js';
import { visibleFleet } from '../../../src/ui/live-frames.js';
import { FleetRows } from '../../../src/ui/fleet-rows.js';
import { summarize } from '../../../src/ui/model.js';
import { pipelinePage } from '../../../src/ui/pipeline-page.js';
import { pullRequestLine, safeLink } from '../../../src/ui/pipeline-sections.js';
import { syntheticFleet, syntheticPipeline, syntheticView, UI_T0 } from '../../support/ui-fleet.js';

const EVIL = '<script>alert(1)</script>';
const everyone = { subject: 'anonymous', sees: () => true, scopeKey: '*', seesNothing: false };
const assetUrl = (a: string) => `/static/${a}`;

/** The page's text content has the value; its markup has no live tag made of it. */
function expectInert(markup: string): void {
  expect(markup).not.toContain('<script>alert');
  expect(markup).not.toMatch(/<img[^>]*onerror/i);
  expect(markup).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
}

describe('html', () => {
  it('escapes text and attributes, and inserts markup it built itself as is', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;',
    );
    const inner = html`<b>${'<i>'}</b>`;
    expect(
      html`<p title="${'"onmouseover="x'}">${inner}${[1, undefined, false, 'y']}</p>`.text,
    ).toBe('<p title="&quot;onmouseover=&quot;x"><b>&lt;i&gt;</b>1y</p>');
  });

  it('shows control and bidirectional characters as U+FFFD, so they cannot reorder the page', () => {
    const reason = 'incident \u202egnp.exe\u202c \u2066x\u2069 \u009b31m \u001b[2J 👩‍💻';
    expect(html`<td>${reason}</td>`.text).toBe(
      '<td>incident \ufffdgnp.exe\ufffd \ufffdx\ufffd \ufffd31m \ufffd[2J 👩‍💻</td>',
    );
  });
});

describe('the fleet row and page', () => {
  it('renders a revision, a state and a name holding <script> as inert text', () => {
    const options = { namespace: 'ns', name: 'app', revision: EVIL, waiting: true };
    const pipeline = syntheticPipeline(options);
    const view = syntheticView(pipeline, options);
    const decision = view.decisions[2];
    if (decision !== undefined)
      decision.gate = { required: 1, requiredHuman: 1, approvedBy: [], summary: EVIL };
    const plan = columnPlan([['dev', 'staging', 'prod']]);
    const row = fleetRow(summarize(pipeline, view), plan).text;
    expectInert(row);
    expect(row).toContain('data-testid="env-revision"');
    expect(row).toContain('data-pipeline="ns/app"');
  });

  it('shows each environment in its column and the counts at the top', () => {
    const source = syntheticFleet(50);
    const rows = new FleetRows(source);
    rows.refresh([], true);
    const fleet = visibleFleet(rows, everyone);
    expect(fleet.counts).toEqual({ total: 50, waiting: 5, failed: 2, unhealthy: 2 });
    const page = fleetPage({ ...fleet, since: 'abcd0123.1', assetUrl }).text;
    expect(page.match(/data-testid="pipeline-row"/g)).toHaveLength(50);
    expect(page.match(/data-testid="env-cell"/g)).toHaveLength(150);
    expect(page).toMatch(/<span data-testid="count-waiting">5<\/span>/);
    expect(page).toContain('waiting for approval of 1.0.0 (0 of 1 approvals)');
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(page).not.toMatch(/\sstyle=/);
    // Its own markup (the rows' separators, the column plan's key) never turns into U+FFFD.
    expect(page).not.toContain('\uFFFD');
    expect(page).toContain(
      'data-columns="n:[&quot;dev&quot;,&quot;staging&quot;,&quot;prod&quot;]"',
    );
    // A shard's gateway says whose fleet this is; an unsharded one says nothing.
    expect(page).not.toContain('data-testid="shard"');
    const shardPage = fleetPage({ ...fleet, since: 'abcd0123.1', assetUrl, shard: 'eu' }).text;
    expect(shardPage).toContain('<small data-testid="shard">shard eu</small>');
  });

  it('stays within its weight at 1,000 Pipelines: HTML gzip <= 150 KB, JS <= 20 KB, CSS <= 10 KB', () => {
    const source = syntheticFleet(1000);
    const rows = new FleetRows(source);
    const started = performance.now();
    rows.refresh([], true);
    const page = fleetPage({ ...visibleFleet(rows, everyone), since: 'abcd0123.1', assetUrl }).text;
    const ms = performance.now() - started;
    const gzipped = gzipSync(page).length;
    const assets = loadAssets();
    const size = (name: string) => assets.get(name)?.body.length ?? Infinity;
    const js = size('fleet.js') + size('live.js');
    console.log(
      `fleet page at 1,000 Pipelines: ${String(page.length)} bytes, ${String(gzipped)} gzipped, rendered in ${ms.toFixed(0)} ms; fleet JS ${String(js)} bytes, CSS ${String(size('ui.css'))} bytes`,
    );
    expect(gzipped).toBeLessThanOrEqual(150 * 1024);
    expect(js).toBeLessThanOrEqual(20 * 1024);
    expect(size('pipeline.js') + size('live.js') + size('copy.js')).toBeLessThanOrEqual(20 * 1024);
    expect(size('ui.css')).toBeLessThanOrEqual(10 * 1024);
  });
});

describe('the Pipeline page', () => {
  it('renders reasons, principals, comments and history from the status as inert text', () => {
    const options = { namespace: 'ns', name: 'app', waiting: true };
    const pipeline = syntheticPipeline(options);
    const prod = pipeline.status?.environments?.prod;
    if (prod === undefined) throw new Error('no prod');
    prod.approvals = [
      {
        principal: EVIL,
        kind: 'human',
        decision: 'approve',
        revision: '1.2.0',
        time: new Date(UI_T0).toISOString(),
        jti: 'statement-1',
        comment: EVIL,
        statement: 'eyJhbGciOiJFZERTQSJ9.eyJzZWNyZXQiOiJ4In0.c2lnbmF0dXJl',
      },
    ];
    prod.history = [
      {
        revision: EVIL,
        startedTime: new Date(UI_T0).toISOString(),
        attempts: 2,
        failedTime: new Date(UI_T0).toISOString(),
        failure: EVIL,
      },
    ];
    prod.promotion = {
      revision: '1.2.0',
      lastAttemptedTime: new Date(UI_T0).toISOString(),
      succeeded: true,
      pullRequest: { state: 'open', url: 'https://user:token@forge.example/acme/app/pull/7' },
    };
    const view = syntheticView(pipeline, options);
    const last = view.decisions[2];
    if (last !== undefined) last.message = EVIL;
    const page = pipelinePage({ pipeline, view, now: UI_T0, since: 'abcd0123.1', assetUrl }).text;
    expectInert(page);
    expect(page).toContain('statement-1');
    expect(page.replace(/\s+/g, ' ')).toContain(
      'promotion-gateway approvals verify --config CONFIG --pipeline ns/app',
    );
    expect(page).not.toContain('eyJhbGciOiJFZERTQSJ9');
    expect(page).toContain('href="https://forge.example/acme/app/pull/7"');
    expect(page).not.toContain('token@');
    for (const id of ['environment', 'decision', 'gate', 'pull-request', 'history', 'lead-time'])
      expect(page).toContain(`data-testid="${id}"`);
  });

  it('shows in the approval gate the change as previewed when the wait began, as inert text', () => {
    const options = { namespace: 'ns', name: 'app', waiting: true };
    const pipeline = syntheticPipeline(options);
    const prod = pipeline.status?.environments?.prod;
    if (prod === undefined) throw new Error('no prod');
    const digest = `sha256:${'ab'.repeat(32)}`;
    prod.waitingApproval = {
      revision: '1.2.0',
      since: new Date(UI_T0).toISOString(),
      preview: { digest, summary: `prod: 1.1.0 -> 1.2.0 by a Promote event ${EVIL}` },
    };
    prod.approvals = [
      {
        principal: 'alice',
        kind: 'human',
        decision: 'approve',
        revision: '1.2.0',
        time: new Date(UI_T0).toISOString(),
      },
    ];
    const view = syntheticView(pipeline, options);
    const page = pipelinePage({ pipeline, view, now: UI_T0, since: 'abcd0123.1', assetUrl }).text;
    expectInert(page);
    const gate = /data-testid="wait-preview">([\s\S]*?)<\/p>/.exec(page)?.[1] ?? '';
    expect(gate.replace(/\s+/g, ' ')).toContain(
      'When the wait began: prod: 1.1.0 -&gt; 1.2.0 by a Promote event',
    );
    expect(gate).toContain(`title="${digest}"`);
  });

  it('shows a rollback in the history and the holds in force, as inert text', () => {
    const options = { namespace: 'ns', name: 'app', waiting: false };
    const pipeline = syntheticPipeline(options);
    const prod = pipeline.status?.environments?.prod;
    if (prod === undefined) throw new Error('no prod');
    const time = new Date(UI_T0).toISOString();
    prod.history = [
      {
        revision: '1.1.0',
        startedTime: time,
        attempts: 1,
        succeededTime: time,
        rollback: { from: '1.2.0', by: [EVIL], reason: EVIL },
      },
    ];
    prod.holds = [
      { revision: '1.2.0', reason: 'RolledBack', by: EVIL, time },
      { revision: '1.0.0', reason: 'RolledBack', by: 'bob', time, liftedAt: time, liftedBy: 'bob' },
    ];
    const view = syntheticView(pipeline, options);
    const page = pipelinePage({ pipeline, view, now: UI_T0, since: 'abcd0123.1', assetUrl }).text;
    expectInert(page);
    const text = page.replace(/\s+/g, ' ');
    expect(text).toContain('rollback from 1.2.0 by');
    expect(text).toContain('1.2.0</b> held: RolledBack');
    expect(text).not.toContain('1.0.0</b> held');
    for (const id of ['rollback', 'holds']) expect(page).toContain(`data-testid="${id}"`);
  });

  it('shows a URL it will not link as text, without credentials either', () => {
    const text = pullRequestLine({
      revision: '1',
      lastAttemptedTime: new Date(UI_T0).toISOString(),
      succeeded: true,
      pullRequest: { state: 'open', url: 'javascript://user:secret@x/%0aalert(1)' },
    }).text;
    expect(text).not.toContain('<a');
    expect(text).not.toContain('secret');
  });

  it('links only plain http(s) URLs, without their credentials', () => {
    expect(safeLink('javascript:alert(1)')).toBeUndefined();
    expect(safeLink('data:text/html,x')).toBeUndefined();
    expect(safeLink('not a url')).toBeUndefined();
    expect(safeLink('https://a:b@forge/x')).toBe('https://forge/x');
    expect(safeLink('https://forge/x?private_token=S3cret&tab=files')).toBe(
      'https://forge/x?private_token=[REDACTED]&tab=files',
    );
  });
});
