/**
 * Missing events, detected by the resync on fakes: a pass after the start-up one that finds a
 * settled change no event announced (here or, through the Pipeline status, at another replica)
 * counts it once per object, warns once per cluster and marks the object; an
 * event after the previous observation, a status already showing the state, or a start-up
 * pass count nothing.
 */
import { describe, expect, it } from 'vitest';
import { PipelineCatalog } from '../../../src/catalog/catalog.js';
import { defaultConfig } from '../../../src/config/load.js';
import { createLogger } from '../../../src/log.js';
import { pipelineId } from '../../../src/pipeline/id.js';
import type { ObjectKey } from '../../../src/pipeline/object-key.js';
import type { Pipeline, PipelineStatus } from '../../../src/pipeline/pipeline-resource.js';
import { Resync } from '../../../src/resync/resync.js';
import {
  LIKELY_CAUSES,
  UNANNOUNCED_MESSAGE,
  warnUnannounced,
} from '../../../src/resync/unannounced.js';
import { targetRecord } from '../../../src/status/compute-status.js';
import type { FoundChange } from '../../../src/verify/verified-targets.js';
import { VerifiedTargets } from '../../../src/verify/verified-targets.js';
import { Verifier } from '../../../src/verify/verifier.js';
import { FakeClusters } from '../../support/fake-clusters.js';
import { FakeScheduler } from '../../support/fake-scheduler.js';

const HR = { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease' };

/** Pipeline `name` in `apps`: dev in namespace `ns` of management, prod in `ns` of eu. */
function pipeline(name: string, ns: string, status?: PipelineStatus): Pipeline {
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name, namespace: 'apps' },
    spec: {
      appRef: { ...HR, name },
      environments: [
        { name: 'dev', targets: [{ namespace: ns }] },
        {
          name: 'prod',
          targets: [{ namespace: ns, clusterRef: { kind: 'GitopsCluster', name: 'eu' } }],
        },
      ],
    },
    ...(status === undefined ? {} : { status }),
  };
}

function key(cluster: string, namespace: string, name: string): ObjectKey {
  return { cluster, group: 'helm.toolkit.fluxcd.io', kind: 'HelmRelease', namespace, name };
}

/** Apps a and b in namespace `team`, c in `other`, every target released at 1.0.0, one pass made. */
async function setup() {
  const config = defaultConfig({
    management: { name: 'mgmt' },
    clusters: [{ name: 'eu', gitopsCluster: { namespace: 'apps', name: 'eu' } }],
  });
  const catalog = new PipelineCatalog(config);
  const clusters = new FakeClusters();
  const scheduler = new FakeScheduler(Date.UTC(2026, 10, 24));
  const verified = new VerifiedTargets(new Verifier(clusters), () => scheduler.now());
  const lines: { msg: string; cluster?: string; namespaces?: string[]; objects?: string[] }[] = [];
  const logger = createLogger('warn', {
    write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]),
  });
  const counted: FoundChange[] = [];
  const resync = new Resync({
    ...{ catalog, verified, logger, scheduler, random: () => 0.5, intervalMs: 60_000, jitter: 0 },
    refreshCredentials: () => Promise.resolve(),
    pipelines: { requestPipeline: () => 'queued' },
    onUnannounced: (changes) => void counted.push(...changes),
  });
  for (const [name, ns] of [
    ['a', 'team'],
    ['b', 'team'],
    ['c', 'other'],
  ] as const) {
    clusters.cluster('mgmt').release(ns, name, '1.0.0');
    clusters.cluster('eu').release(ns, name, '1.0.0');
    catalog.upsert(pipeline(name, ns));
  }
  const startUp = await resync.runOnce();
  scheduler.advance(1_000);
  const warnings = () => lines.filter((l) => l.msg === UNANNOUNCED_MESSAGE);
  return { catalog, clusters, scheduler, verified, resync, counted, warnings, startUp };
}

describe('a resync pass looking for missing events', () => {
  it('finds nothing in the start-up pass, nor in a pass over an unchanged fleet', async () => {
    const s = await setup();
    expect(s.startUp.unannounced).toBe(0);
    expect((await s.resync.runOnce()).unannounced).toBe(0);
    expect(s.warnings()).toHaveLength(0);
  });

  it('counts each unannounced object, warns once per cluster, and marks them', async () => {
    const s = await setup();
    s.clusters.cluster('mgmt').release('team', 'a', '2.0.0');
    s.clusters.cluster('mgmt').release('team', 'b', '2.0.0');
    s.clusters.cluster('mgmt').release('other', 'c', '2.0.0');
    s.clusters.cluster('eu').release('team', 'a', '2.0.0');
    const report = await s.resync.runOnce();

    expect(report.unannounced).toBe(4);
    const where = ({ target: { key } }: (typeof s.counted)[number]) =>
      `${key.cluster} ${key.kind} ${key.namespace}/${key.name}`;
    expect(s.counted.map(where).sort()).toEqual([
      'eu HelmRelease team/a',
      'mgmt HelmRelease other/c',
      'mgmt HelmRelease team/a',
      'mgmt HelmRelease team/b',
    ]);
    // In the order the pass found them: sorted here.
    const warned = s
      .warnings()
      .map((w) => [w.cluster, w.namespaces?.toSorted(), w.objects?.toSorted()]);
    expect(warned).toHaveLength(2);
    expect(warned).toContainEqual([
      'mgmt',
      ['other', 'team'],
      [
        'HelmRelease other/c: 1.0.0 Healthy -> 2.0.0 Healthy',
        'HelmRelease team/a: 1.0.0 Healthy -> 2.0.0 Healthy',
        'HelmRelease team/b: 1.0.0 Healthy -> 2.0.0 Healthy',
      ],
    ]);
    expect(warned).toContainEqual([
      'eu',
      ['team'],
      ['HelmRelease team/a: 1.0.0 Healthy -> 2.0.0 Healthy'],
    ]);
    expect(s.warnings()[0]).toMatchObject({ likelyCauses: LIKELY_CAUSES });
    expect(s.verified.announcement(key('mgmt', 'team', 'a'))).toBe('unannounced');
    expect(s.verified.announcement(key('mgmt', 'team', 'unchanged'))).toBeUndefined();

    // The next pass finds nothing new: each change is counted and warned about once.
    expect((await s.resync.runOnce()).unannounced).toBe(0);
    expect(s.warnings()).toHaveLength(2);
    expect(s.verified.announcement(key('mgmt', 'team', 'a'))).toBe('unannounced');
  });

  it.each<[string, number, (s: Awaited<ReturnType<typeof setup>>) => void | Promise<void>]>([
    ['no event', 1, () => undefined],
    [
      'an event after the previous observation (its read still queued)',
      0,
      (s) => {
        s.verified.noteEvent(key('mgmt', 'team', 'a'));
      },
    ],
    [
      'an event before the previous observation (about an older change)',
      1,
      async (s) => {
        s.verified.noteEvent(key('mgmt', 'team', 'a'));
        s.scheduler.advance(1_000);
        s.clusters.cluster('mgmt').release('team', 'a', '1.0.0');
        await s.resync.runOnce();
        s.clusters.cluster('mgmt').release('team', 'a', '2.0.0');
      },
    ],
    [
      'a hinted read here found the change first',
      0,
      async (s) => {
        const target = s.catalog
          .targetsOf(pipelineId({ namespace: 'apps', name: 'a' }))
          .find((t) => t.environment === 'dev');
        if (target !== undefined) await s.verified.read(target);
      },
    ],
    [
      "the Pipeline status already shows it (another replica's read)",
      0,
      (s) => {
        const p = pipeline('a', 'team');
        const dev = p.spec.environments[0]?.targets[0];
        if (dev === undefined) throw new Error('no dev target');
        const status = {
          location: { cluster: 'mgmt', namespace: 'team' },
          health: 'Healthy' as const,
          reason: 'Ready',
          message: 'HelmRelease a is ready at 2.0.0',
          revision: '2.0.0',
        };
        const record = { ...targetRecord(p.spec.appRef, dev, status), observedTime: 'x' };
        s.catalog.upsert(pipeline('a', 'team', { environments: { dev: { targets: [record] } } }));
      },
    ],
  ])('with %s before the pass counts %i', async (_name, count, before) => {
    const s = await setup();
    s.clusters.cluster('mgmt').release('team', 'a', '2.0.0');
    s.scheduler.advance(1_000);
    await before(s);
    s.scheduler.advance(1_000);
    expect((await s.resync.runOnce()).unannounced).toBe(count);
    expect(s.warnings()).toHaveLength(count);
  });

  it('takes an event during an outage for the change found after it', async () => {
    const s = await setup();
    const eu = s.clusters.cluster('eu');
    eu.failure = 'Unavailable';
    await s.resync.runOnce();
    s.scheduler.advance(1_000);
    // Flux rolls prod out and tells us; the read that event causes fails, and so does a pass.
    s.verified.noteEvent(key('eu', 'team', 'a'));
    s.scheduler.advance(1_000);
    await s.resync.runOnce();
    eu.failure = undefined;
    eu.release('team', 'a', '2.0.0');
    eu.release('team', 'b', '2.0.0');
    const report = await s.resync.runOnce();
    // a was announced; b was not.
    expect(s.counted.map((c) => c.target.key.name)).toEqual(['b']);
    expect(report.unannounced).toBe(1);
    expect(s.verified.announcement(key('eu', 'team', 'a'))).toBe('announced');
  });
});

describe('warnUnannounced', () => {
  /** `count` changes in cluster `cluster`, one per namespace ns0, ns1, ... */
  function changes(cluster: string, count: number): FoundChange[] {
    return Array.from({ length: count }, (_, i) => {
      const namespace = `ns${String(i)}`;
      const target = { key: key(cluster, namespace, 'app') } as FoundChange['target'];
      const previous = { revision: '1.0.0', health: 'Healthy' } as FoundChange['previous'];
      return { target, previous, status: { ...previous, revision: '2.0.0' } };
    });
  }

  it('names at most 10 namespaces and 10 objects per cluster, and counts the rest', () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger('warn', {
      write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
    });
    warnUnannounced(logger, [...changes('dev', 8_000), ...changes('prod', 2)]);
    expect(lines.map((l) => l.cluster)).toEqual(['dev', 'prod']);
    expect(lines[0]).toMatchObject({
      msg: UNANNOUNCED_MESSAGE,
      changes: 8_000,
      namespaces: Array.from({ length: 10 }, (_, i) => `ns${String(i)}`),
      moreNamespaces: 7_990,
      more: 7_990,
      likelyCauses: LIKELY_CAUSES,
    });
    expect(lines[0]?.objects).toHaveLength(10);
    expect(lines[0]?.objects).toContain('HelmRelease ns9/app: 1.0.0 Healthy -> 2.0.0 Healthy');
    expect(lines[1]).toMatchObject({ changes: 2, namespaces: ['ns0', 'ns1'] });
    expect(lines[1]).not.toHaveProperty('more');
    expect(lines[1]).not.toHaveProperty('moreNamespaces');
  });
});
