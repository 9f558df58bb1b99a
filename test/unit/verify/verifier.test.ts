import { describe, expect, it } from 'vitest';
import type { CatalogTarget, ListScope } from '../../../src/catalog/targets.js';
import type {
  ClusterDirectory,
  KubeObject,
  ObjectReader,
  ObjectRef,
  PageVisitor,
  ReadResult,
} from '../../../src/kube/ports.js';
import { objectKeyId } from '../../../src/pipeline/object-key.js';
import { Verifier } from '../../../src/verify/verifier.js';

/** A cluster serving only some apiVersions, counting every call. */
class FakeReader implements ObjectReader {
  calls: string[] = [];
  constructor(
    private readonly served: string[],
    private readonly objects: KubeObject[],
  ) {}
  get(ref: ObjectRef): Promise<ReadResult> {
    this.calls.push(`get ${ref.apiVersion}`);
    const found = this.objects.find((o) => o.metadata.name === ref.name);
    if (!this.served.includes(ref.apiVersion) || found === undefined) {
      return Promise.resolve({ ok: false, reason: 'NotFound', message: 'not found' });
    }
    return Promise.resolve({ ok: true, value: { ...found, apiVersion: ref.apiVersion } });
  }
  list(
    apiVersion: string,
    _kind: string,
    _namespace: string | undefined,
    visit: PageVisitor,
  ): Promise<ReadResult<number>> {
    this.calls.push(`list ${apiVersion}`);
    if (!this.served.includes(apiVersion))
      return Promise.resolve({ ok: false, reason: 'NotFound', message: 'no such resource' });
    visit(this.objects.map((o) => ({ ...o, apiVersion })));
    return Promise.resolve({ ok: true, value: this.objects.length });
  }
}

function directory(reader: ObjectReader | undefined): ClusterDirectory {
  return {
    reader: () => reader,
    clusters: () => (reader ? ['dev'] : []),
    problem: () => (reader ? undefined : 'no credentials for dev'),
  };
}

const release: KubeObject = {
  apiVersion: 'helm.toolkit.fluxcd.io/v2',
  kind: 'HelmRelease',
  metadata: { name: 'podinfo', namespace: 'apps', generation: 1 },
  status: {
    observedGeneration: 1,
    conditions: [{ type: 'Ready', status: 'True', reason: 'UpgradeSucceeded', message: '' }],
    history: [{ chartVersion: '6.7.1', version: 2, status: 'deployed' }],
  },
};
const key = {
  cluster: 'dev',
  group: 'helm.toolkit.fluxcd.io',
  kind: 'HelmRelease',
  namespace: 'apps',
  name: 'podinfo',
};
const v2beta1Ref: ObjectRef = {
  apiVersion: 'helm.toolkit.fluxcd.io/v2beta1',
  kind: 'HelmRelease',
  namespace: 'apps',
  name: 'podinfo',
};

/** The catalog's target for podinfo in dev, as a Pipeline naming v2beta1 derives it. */
const podinfo: CatalogTarget = {
  environment: 'dev',
  index: 0,
  location: { cluster: 'dev', namespace: 'apps' },
  ref: v2beta1Ref,
  key,
  id: objectKeyId(key),
};

describe('Verifier', () => {
  it('reads a v2beta1 appRef through v2 on a cluster that serves only v2, in one read', async () => {
    const reader = new FakeReader(['helm.toolkit.fluxcd.io/v2'], [release]);
    const status = await new Verifier(directory(reader)).readOne(podinfo);
    expect(status).toMatchObject({ health: 'Healthy', revision: '6.7.1' });
    expect(reader.calls).toEqual(['get helm.toolkit.fluxcd.io/v2']);
  });

  it('falls back to an older served version and remembers it', async () => {
    const reader = new FakeReader(['helm.toolkit.fluxcd.io/v2beta1'], [release]);
    const verifier = new Verifier(directory(reader));
    await verifier.readOne(podinfo);
    reader.calls = [];
    const again = await verifier.readOne(podinfo);
    // Read as v2beta1, the object is judged by v2beta1 rules: it has no lastAppliedRevision.
    expect(again).toMatchObject({ health: 'Unhealthy', reason: 'NoAppliedRevision' });
    expect(reader.calls).toEqual(['get helm.toolkit.fluxcd.io/v2beta1']);
  });

  it("reports a cluster without credentials as Unknown with the registry's reason", async () => {
    const status = await new Verifier({
      ...directory(undefined),
      problem: () => 'Secret flux-system/dev has no kubeconfig key',
    }).readOne(podinfo);
    expect(status).toMatchObject({
      health: 'Unknown',
      reason: 'UnknownCluster',
      message: 'Secret flux-system/dev has no kubeconfig key',
    });
  });

  it('maps one LIST onto every target of the scope; a missing object is NotFound', async () => {
    const reader = new FakeReader(['helm.toolkit.fluxcd.io/v2'], [release]);
    const scope: ListScope = {
      cluster: 'dev',
      group: key.group,
      kind: 'HelmRelease',
      namespace: 'apps',
      apiVersion: 'helm.toolkit.fluxcd.io/v2',
      apiVersions: ['helm.toolkit.fluxcd.io/v2'],
    };
    const target = (name: string): CatalogTarget => ({
      environment: 'dev',
      index: 0,
      location: { cluster: 'dev', namespace: 'apps' },
      ref: { ...v2beta1Ref, name },
      key: { ...key, name },
      id: objectKeyId({ ...key, name }),
    });
    const present = target('podinfo');
    const missing = target('other');
    const statuses = await new Verifier(directory(reader)).readScope(scope, [present, missing]);
    expect(reader.calls).toEqual(['list helm.toolkit.fluxcd.io/v2']);
    expect(statuses.get(present)).toMatchObject({ health: 'Healthy', revision: '6.7.1' });
    expect(statuses.get(missing)).toMatchObject({ health: 'Unknown', reason: 'NotFound' });
  });
});
