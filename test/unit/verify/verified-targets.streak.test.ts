/**
 * VerifiedTargets keeps, with every read, the run of healthy reads a soak counts: started by
 * the first Healthy read at a revision, kept by later reads that agree, broken by a read that
 * cannot read the object (Unknown) or finds it gone or at another revision, by GET and LIST.
 */
import { describe, expect, it } from 'vitest';
import { PipelineCatalog } from '../../../src/catalog/catalog.js';
import { defaultConfig } from '../../../src/config/load.js';
import { VerifiedTargets } from '../../../src/verify/verified-targets.js';
import { Verifier } from '../../../src/verify/verifier.js';
import { FakeClusters } from '../../support/fake-clusters.js';

function setup() {
  const config = defaultConfig({
    management: { name: 'mgmt' },
    clusters: [{ name: 'eu', gitopsCluster: { namespace: 'apps', name: 'eu' } }],
  });
  const catalog = new PipelineCatalog(config);
  catalog.upsert({
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name: 'app', namespace: 'apps' },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'app' },
      environments: [
        {
          name: 'dev',
          targets: [{ namespace: 'app', clusterRef: { kind: 'GitopsCluster', name: 'eu' } }],
        },
      ],
    },
  });
  const clusters = new FakeClusters();
  const eu = clusters.cluster('eu');
  eu.release('app', 'app', '1.0.0');
  const clock = { now: 1_000 };
  const verified = new VerifiedTargets(new Verifier(clusters), () => clock.now);
  const [target] = catalog.ids().flatMap((id) => catalog.targetsOf(id));
  if (target === undefined) throw new Error('no target');
  return { catalog, eu, verified, clock, target };
}

describe('VerifiedTargets and the soak streak', () => {
  it('starts, keeps, breaks and starts again, by GET', async () => {
    const s = setup();
    await s.verified.read(s.target);
    const started = s.verified.get(s.target.key)?.streak;
    expect(started).toEqual({ healthyRevision: '1.0.0', healthySince: 1_000 });
    s.clock.now = 2_000;
    await s.verified.read(s.target);
    // A healthy read at the same revision keeps the run's start.
    expect(s.verified.streak(s.target)).toEqual(started);

    s.eu.failure = 'Unavailable';
    s.clock.now = 3_000;
    await s.verified.read(s.target);
    expect(s.verified.get(s.target.key)?.streak).toEqual({ brokenAt: 3_000 });

    s.eu.failure = undefined;
    s.clock.now = 4_000;
    await s.verified.read(s.target);
    expect(s.verified.get(s.target.key)?.streak).toEqual({
      healthyRevision: '1.0.0',
      healthySince: 4_000,
      brokenAt: 3_000,
    });
  });

  it('starts a new run at a new revision, by LIST, the last read of the old being its break', async () => {
    const s = setup();
    await s.verified.readScopes(s.catalog.allTargets());
    s.eu.release('app', 'app', '1.1.0');
    s.clock.now = 5_000;
    await s.verified.readScopes(s.catalog.allTargets());
    expect(s.verified.get(s.target.key)?.streak).toEqual({
      healthyRevision: '1.1.0',
      healthySince: 5_000,
      brokenAt: 1_000,
    });
  });
});
