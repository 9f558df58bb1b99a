/**
 * The picture of a Pipeline's path: each environment's box shows its revision, health and what
 * it waits for in the fleet's words; the arrow into an environment is marked in flight, waiting
 * or failed, with the revision it carries, and plain when nothing moves; values are escaped.
 */
import { describe, expect, it } from 'vitest';
import type { EnvironmentDecision } from '../../../src/evaluate/decisions.js';
import type { EnvironmentStatus } from '../../../src/pipeline/pipeline-resource.js';
import { summarize, type EnvSummary } from '../../../src/ui/model.js';
import { pipelinePage } from '../../../src/ui/pipeline-page.js';
import { edgeOf, type Edge } from '../../../src/ui/pipeline-picture.js';
import { syntheticPipeline, syntheticView, UI_T0 } from '../../support/ui-fleet.js';

const at = new Date(UI_T0).toISOString();
const decided = (
  outcome: EnvironmentDecision['outcome'],
  reason: string,
  revision = '1.2.0',
): EnvironmentDecision => ({ environment: 'prod', outcome, reason, revision, message: '' });
const record = (
  extra: Partial<NonNullable<EnvironmentStatus['promotion']>>,
): EnvironmentStatus => ({
  promotion: { revision: '1.2.0', lastAttemptedTime: at, succeeded: false, ...extra },
});
const words = (tone: EnvSummary['tone'], failed = false) =>
  ({ tone, failed, waiting: false }) as EnvSummary;

describe('the arrow into an environment', () => {
  const cases: [string, Parameters<typeof edgeOf>, Edge][] = [
    [
      'a promotion',
      [decided('Promote', 'Promote'), undefined, words('info')],
      { state: 'flight', revision: '1.2.0' },
    ],
    [
      'a rollback',
      [decided('RollBack', 'RollBack', '1.1.0'), undefined, words('fail')],
      { state: 'flight', revision: '1.1.0' },
    ],
    [
      'a promotion rolling out',
      [decided('AlreadyPromoted', 'PromotionInProgress'), undefined, words('info')],
      { state: 'flight', revision: '1.2.0' },
    ],
    [
      'targets rolling out',
      [decided('UpToDate', 'RollingOut'), undefined, words('info')],
      { state: 'flight', revision: '1.2.0' },
    ],
    [
      'an open pull request',
      [
        decided('Waiting', 'PullRequestOpen'),
        record({ pullRequest: { state: 'open', url: 'https://f/1' } }),
        words('wait'),
      ],
      { state: 'flight', revision: '1.2.0' },
    ],
    [
      'a live claim, not yet decided here',
      [undefined, record({ phase: 'Claimed' }), words('info')],
      { state: 'flight', revision: '1.2.0' },
    ],
    [
      'an approval gate',
      [decided('WaitingApproval', 'ApprovalRequired'), undefined, words('wait')],
      { state: 'waiting', revision: '1.2.0' },
    ],
    [
      'a closed window',
      [decided('Waiting', 'InDenyWindow'), undefined, words('wait')],
      { state: 'waiting', revision: '1.2.0' },
    ],
    [
      'a failed promotion',
      [decided('Failed', 'RetriesExhausted'), undefined, words('fail', true)],
      { state: 'failed', revision: '1.2.0' },
    ],
    [
      'a rejection',
      [decided('Rejected', 'Rejected'), undefined, words('fail')],
      { state: 'failed', revision: '1.2.0' },
    ],
    [
      'an environment up to date',
      [
        decided('UpToDate', 'Deployed'),
        record({ pullRequest: { state: 'open', url: 'https://f/1' } }),
        words('ok'),
      ],
      { state: 'idle' },
    ],
    [
      'upstream not ready',
      [decided('Waiting', 'UpstreamNotReady'), undefined, words('muted')],
      { state: 'idle' },
    ],
    ['nothing known yet', [undefined, undefined, undefined], { state: 'idle' }],
  ];
  it.each(cases)('is drawn for %s', (_, args, edge) => {
    expect(edgeOf(...args)).toEqual(edge);
  });
});

describe('the picture on the Pipeline page', () => {
  const options = { namespace: 'ns', name: 'app', waiting: true };

  it('opens the page: each environment with its revision, health and words, in order', () => {
    const pipeline = syntheticPipeline(options);
    const view = syntheticView(pipeline, options);
    const page = pipelinePage({
      pipeline,
      view,
      now: UI_T0,
      since: 'a.1',
      assetUrl: (a) => a,
    }).text;
    const picture = page.slice(page.indexOf('id="picture"'), page.indexOf('id="environments"'));
    expect(page.indexOf('id="picture"')).toBeLessThan(page.indexOf('id="environments"'));
    const summary = summarize(pipeline, view);
    const envs = [...picture.matchAll(/data-testid="picture-env" data-env="([^"]+)"/g)];
    expect(envs.map((m) => m[1])).toEqual(['dev', 'staging', 'prod']);
    for (const env of summary.environments) expect(picture).toContain(`>${env.state}</p>`);
    expect(picture).toContain('waiting for approval of 1.2.0 (0 of 1 approvals)');
    expect(picture).toMatch(/data-state="idle" data-revision=""/);
    expect(picture).toMatch(/data-state="waiting" data-revision="1\.2\.0"/);
    expect(picture.match(/data-testid="picture-edge"/g)).toHaveLength(2);
    expect(picture).toContain('<span class="id">1.1.0</span>');
  });

  it('shows a long revision shortened, whole in its title, and escapes every value', () => {
    const revision = `<b>x</b>@sha256:${'ab'.repeat(32)}`;
    const pipeline = syntheticPipeline({ ...options, revision });
    const view = syntheticView(pipeline, { ...options, revision });
    const page = pipelinePage({
      pipeline,
      view,
      now: UI_T0,
      since: 'a.1',
      assetUrl: (a) => a,
    }).text;
    const picture = page.slice(page.indexOf('id="picture"'), page.indexOf('id="environments"'));
    expect(picture).not.toContain('<b>x</b>');
    expect(picture).toContain(`title="&lt;b&gt;x&lt;/b&gt;@sha256:${'ab'.repeat(32)}"`);
    expect(picture).toContain('<span>sha256:</span><wbr /><span>abababa…</span>');
    expect(picture).not.toContain('<button');
  });
});
