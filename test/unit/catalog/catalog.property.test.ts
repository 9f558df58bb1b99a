import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClusterConfig } from '../../../src/config/gateway-config.js';
import { objectKeyId } from '../../../src/pipeline/object-key.js';
import type { ObjectKey } from '../../../src/pipeline/object-key.js';
import { PipelineCatalog } from '../../../src/catalog/catalog.js';
import type { ListScope } from '../../../src/catalog/targets.js';
import { pipelineId } from '../../../src/pipeline/id.js';
import type { Pipeline, PipelineTarget } from '../../../src/pipeline/pipeline-resource.js';
import { planScopes } from '../../../src/verify/scope-plan.js';

/** The catalog's LIST scopes, one per (cluster, group, kind, namespace): never widened. */
function scopesOf(catalog: PipelineCatalog): ListScope[] {
  return [...planScopes(catalog.allTargets(), () => true).keys()];
}

function cluster(name: string, gitopsCluster?: { namespace: string; name: string }): ClusterConfig {
  return { name, gitopsCluster, hmacKeys: [], jwtSubjects: [] };
}

const config = {
  management: { name: 'mgmt' },
  clusters: [cluster('east', { namespace: 'ns1', name: 'east' })],
};

// Small pools so that sequences often collide on ids, objects and scopes.
const target: fc.Arbitrary<PipelineTarget> = fc.record(
  {
    namespace: fc.constantFrom('a', 'b', 'c'),
    clusterRef: fc.record(
      { kind: fc.constant('GitopsCluster' as const), name: fc.constantFrom('east', 'west') },
      { requiredKeys: ['kind', 'name'] },
    ),
  },
  { requiredKeys: ['namespace'] },
);

const appRef = fc.record({
  apiVersion: fc.constantFrom(
    'helm.toolkit.fluxcd.io/v2beta1',
    'helm.toolkit.fluxcd.io/v2',
    'kustomize.toolkit.fluxcd.io/v1',
  ),
  kind: fc.constantFrom('HelmRelease', 'Kustomization'),
  name: fc.constantFrom('x', 'y'),
});

const pipelineArb: fc.Arbitrary<Pipeline> = fc
  .record({
    namespace: fc.constantFrom('ns1', 'ns2'),
    name: fc.constantFrom('p', 'q', 'r'),
    appRef,
    environments: fc.array(
      fc.record({
        name: fc.constantFrom('dev', 'prod'),
        targets: fc.array(target, { maxLength: 3 }),
      }),
      { maxLength: 3 },
    ),
  })
  .map(({ namespace, name, appRef: ref, environments }) => ({
    apiVersion: 'pipelines.weave.works/v1alpha1' as const,
    kind: 'Pipeline' as const,
    metadata: { namespace, name },
    spec: { appRef: ref, environments },
  }));

type Command =
  { op: 'upsert'; pipeline: Pipeline } | { op: 'remove'; namespace: string; name: string };

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 3, arbitrary: pipelineArb.map((pipeline) => ({ op: 'upsert' as const, pipeline })) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('remove' as const),
      namespace: fc.constantFrom('ns1', 'ns2'),
      name: fc.constantFrom('p', 'q', 'r'),
    }),
  },
);

describe('PipelineCatalog reverse index', () => {
  it('equals an index rebuilt from scratch after any sequence of upserts and removes', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 40 }), (commands) => {
        const index = new PipelineCatalog(config);
        const model = new Map<string, Pipeline>();
        const everSeen = new Map<string, ObjectKey>();
        for (const c of commands) {
          if (c.op === 'upsert') {
            const id = pipelineId({
              namespace: c.pipeline.metadata.namespace,
              name: c.pipeline.metadata.name,
            });
            // The catalog takes what it is given as its own: each upsert gets a copy.
            const changed = index.upsert(structuredClone(c.pipeline));
            if (!model.has(id)) expect(changed).toBe(true);
            model.set(id, c.pipeline);
            for (const t of index.targetsOf(id)) everSeen.set(objectKeyId(t.key), t.key);
          } else {
            const id = pipelineId({ namespace: c.namespace, name: c.name });
            expect(index.remove(pipelineId({ namespace: c.namespace, name: c.name }))).toBe(
              model.delete(id),
            );
          }
        }

        const rebuilt = new PipelineCatalog(config);
        for (const p of model.values()) rebuilt.upsert(structuredClone(p));
        expect(index.size).toBe(model.size);
        expect(index.ids()).toEqual(rebuilt.ids());
        expect(index.referencedObjects).toBe(rebuilt.referencedObjects);
        for (const key of everSeen.values()) {
          expect(index.pipelinesFor(key)).toEqual(rebuilt.pipelinesFor(key));
          expect(index.references(key)).toBe(rebuilt.references(key));
        }
        for (const id of rebuilt.ids()) expect(index.targetsOf(id)).toEqual(rebuilt.targetsOf(id));
        expect(scopesOf(index)).toEqual(scopesOf(rebuilt));
      }),
      { numRuns: 300 },
    );
  });

  it('references exactly the objects of the indexed Pipelines', () => {
    fc.assert(
      fc.property(fc.array(pipelineArb, { maxLength: 6 }), (pipelines) => {
        const index = new PipelineCatalog(config);
        for (const p of pipelines) index.upsert(p);
        const expected = new Map<string, Set<string>>();
        for (const id of index.ids()) {
          for (const t of index.targetsOf(id)) {
            const k = objectKeyId(t.key);
            expected.set(k, (expected.get(k) ?? new Set()).add(id));
          }
        }
        expect(index.referencedObjects).toBe(expected.size);
        for (const id of index.ids()) {
          for (const t of index.targetsOf(id)) {
            expect(index.pipelinesFor(t.key)).toEqual(
              [...(expected.get(objectKeyId(t.key)) ?? [])].sort(),
            );
          }
        }
        // One scope per distinct (cluster, group, kind, namespace), never one per Pipeline.
        const scopes = new Set(
          index
            .ids()
            .flatMap((id) => index.targetsOf(id))
            .map(({ key }) => JSON.stringify([key.cluster, key.group, key.kind, key.namespace])),
        );
        expect(scopesOf(index)).toHaveLength(scopes.size);
      }),
    );
  });
});
