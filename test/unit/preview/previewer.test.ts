/**
 * The Previewer over fakes of the strategy and the object reads: the strategy's change is kept
 * per (Pipeline generation, environment, revision, base commit) and made again only when one
 * of them moves; a webhook body and a change that cannot be known are never kept; each
 * target's move and source come from its status and its object.
 */
import { describe, expect, it } from 'vitest';
import type { CatalogTarget } from '../../../src/catalog/targets.js';
import type { KubeObject, ReadResult } from '../../../src/kube/ports.js';
import type { Pipeline } from '../../../src/pipeline/pipeline-resource.js';
import { PreviewCache } from '../../../src/preview/preview-cache.js';
import { Previewer, pendingOf } from '../../../src/preview/previewer.js';
import type {
  PromotionStrategy,
  StrategyPreview,
} from '../../../src/promote/strategies/strategy.js';
import { samplePipeline } from '../../support/pipeline-fixtures.js';

/** A strategy whose preview edits one file on base `base.current`, counting its previews. */
function fakeStrategy(name: string, preview: (base: string) => StrategyPreview) {
  const state = { base: 'b1', previews: 0, keys: 0 };
  const strategy: PromotionStrategy = {
    name,
    attemptTimeoutMs: 1000,
    run: () => Promise.resolve({ ok: true, message: 'done' }),
    preview: () => {
      state.previews++;
      return Promise.resolve(preview(state.base));
    },
    previewKey: () => {
      state.keys++;
      return Promise.resolve(state.base);
    },
  };
  return { strategy, state };
}

const pullRequest = (base: string): StrategyPreview => ({
  kind: 'pull-request',
  repository: 'https://forge.example.com/acme/fleet',
  baseBranch: 'main',
  branch: 'promotion-flux-system-podinfo-prod',
  base,
  files: [{ path: 'prod.yaml', before: 'v: 1.0.0\n', after: 'v: 1.1.0\n' }],
});

const prodTarget: CatalogTarget = {
  environment: 'prod',
  index: 0,
  location: { cluster: 'prod', namespace: 'podinfo' },
  ref: {
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    namespace: 'podinfo',
    name: 'podinfo',
  },
  key: {
    cluster: 'prod',
    group: 'helm.toolkit.fluxcd.io',
    kind: 'HelmRelease',
    namespace: 'podinfo',
    name: 'podinfo',
  },
  id: 'prod/podinfo/podinfo',
};

const release: KubeObject = {
  apiVersion: 'helm.toolkit.fluxcd.io/v2',
  kind: 'HelmRelease',
  metadata: { name: 'podinfo', namespace: 'podinfo' },
  spec: {
    chart: { spec: { chart: 'podinfo', sourceRef: { kind: 'HelmRepository', name: 'charts' } } },
  },
};

function previewerWith(strategy: PromotionStrategy) {
  let reads = 0;
  const previewer = new Previewer({
    strategyFor: () => strategy,
    readObject: (): Promise<ReadResult> => {
      reads++;
      return Promise.resolve({ ok: true, value: release });
    },
    cache: new PreviewCache(8),
  });
  const ask = (pipeline: Pipeline = samplePipeline(), revision = '1.1.0') =>
    previewer.preview({
      pipeline,
      environment: 'prod',
      pending: { revision, attempt: 1 },
      targets: [prodTarget],
      statuses: [
        {
          location: prodTarget.location,
          health: 'Healthy',
          revision: '1.0.0',
          reason: 'Ready',
          message: 'ready',
        },
      ],
    });
  return { ask, reads: () => reads };
}

describe('Previewer', () => {
  it('keeps the change while the base commit is the same, and makes it again when it moves', async () => {
    const { strategy, state } = fakeStrategy('pull-request', pullRequest);
    const { ask, reads } = previewerWith(strategy);
    const first = await ask();
    const again = await ask();
    expect(again).toEqual(first);
    expect(state).toMatchObject({ previews: 1, keys: 2 });
    expect(reads()).toBe(2); // sources are read each time: a changed source changes the digest

    state.base = 'b2';
    const moved = await ask();
    expect(state.previews).toBe(2);
    expect(moved.digest).not.toBe(first.digest);
    expect(moved.change).toMatchObject({ kind: 'pull-request', baseCommit: 'b2' });

    // Another revision or generation is another change.
    await ask(samplePipeline(), '1.2.0');
    const respec = samplePipeline();
    respec.metadata.generation = 4;
    await ask(respec);
    expect(state.previews).toBe(4);
  });

  it("names each target's move and source", async () => {
    const { strategy } = fakeStrategy('pull-request', pullRequest);
    const preview = await previewerWith(strategy).ask();
    expect(preview.moves).toEqual([
      {
        target: 'prod/podinfo/podinfo',
        from: '1.0.0',
        to: '1.1.0',
        source: { kind: 'HelmRepository', name: 'charts', chart: 'podinfo' },
      },
    ]);
    expect(preview.summary).toBe('prod: 1.0.0 -> 1.1.0 by pull request on main (1 file)');
  });

  it('never keeps a webhook body (it carries its time) nor a change that cannot be known', async () => {
    const webhook = fakeStrategy('webhook', () => ({
      kind: 'webhook',
      endpoint: 'deployer',
      body: '{"revision":"1.1.0"}',
      varies: ['attempt', 'timestamp'],
    }));
    const w = previewerWith(webhook.strategy);
    await w.ask();
    await w.ask();
    expect(webhook.state.previews).toBe(2);
    const failing = fakeStrategy('pull-request', () => ({
      kind: 'unavailable',
      reason: 'Unavailable',
      message: 'the forge did not answer',
    }));
    const f = previewerWith(failing.strategy);
    expect((await f.ask()).change.kind).toBe('unavailable');
    await f.ask();
    expect(failing.state.previews).toBe(2);
  });
});

describe('pendingOf', () => {
  it.each([
    ['Promote', '1.1.0', { revision: '1.1.0', attempt: 2 }],
    ['WaitingApproval', '1.1.0', { revision: '1.1.0', attempt: 2 }],
    ['Waiting', '1.1.0', { revision: '1.1.0', attempt: 2 }],
    ['Waiting', undefined, undefined],
    ['UpToDate', '1.1.0', undefined],
    ['AlreadyPromoted', '1.1.0', undefined],
  ] as const)('%s at %s', (outcome, revision, want) => {
    const decision = {
      environment: 'prod',
      outcome,
      reason: 'R',
      message: 'm',
      attempt: 2,
      ...(revision === undefined ? {} : { revision }),
    };
    expect(pendingOf(decision)).toEqual(want);
  });
});
