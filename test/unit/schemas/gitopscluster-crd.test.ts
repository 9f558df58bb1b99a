/** The minimal GitopsCluster CRD holds what the gateway reads, and keeps status as written. */
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { packagePath } from '../../../src/paths.js';

interface Crd {
  spec: {
    group: string;
    scope: string;
    names: { kind: string; plural: string };
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      subresources?: { status?: object };
      schema: { openAPIV3Schema: Record<string, unknown> };
    }[];
  };
}

const crd = parse(
  readFileSync(
    packagePath('manifests', 'third-party', 'gitopsclusters.gitops.weave.works.yaml'),
    'utf8',
  ),
) as Crd;
const version = crd.spec.versions[0]!;

/** x-kubernetes-* keys are API-server hints that ajv's strict mode does not know. */
function withoutKubernetesKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutKubernetesKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !key.startsWith('x-kubernetes-'))
      .map(([key, child]) => [key, withoutKubernetesKeys(child)]),
  );
}

const validate = new Ajv({ strict: true }).compile(
  withoutKubernetesKeys(version.schema.openAPIV3Schema) as object,
);

function cluster(spec: unknown, status?: unknown): unknown {
  return {
    apiVersion: 'gitops.weave.works/v1alpha1',
    kind: 'GitopsCluster',
    metadata: { name: 'prod', namespace: 'fleet' },
    spec,
    ...(status === undefined ? {} : { status }),
  };
}

describe('manifests/third-party/gitopsclusters.gitops.weave.works.yaml', () => {
  it('defines a namespaced gitops.weave.works/v1alpha1 GitopsCluster with a status subresource', () => {
    expect([crd.spec.group, crd.spec.scope, crd.spec.names.kind, crd.spec.names.plural]).toEqual([
      'gitops.weave.works',
      'Namespaced',
      'GitopsCluster',
      'gitopsclusters',
    ]);
    expect([version.name, version.served, version.storage]).toEqual(['v1alpha1', true, true]);
    expect(version.subresources?.status).toEqual({});
  });

  it('preserves unknown fields in status', () => {
    const status = dig(version.schema.openAPIV3Schema, 'properties', 'status');
    expect(status['x-kubernetes-preserve-unknown-fields']).toBe(true);
  });

  it.each([
    ['a secretRef', { secretRef: { name: 'prod-kubeconfig' } }],
    ['a capiClusterRef', { capiClusterRef: { name: 'prod' } }],
    ['neither', {}],
  ])('accepts %s', (_name, spec) => {
    expect(validate(cluster(spec, { conditions: [{ type: 'Ready' }] }))).toBe(true);
  });

  it.each([
    ['a secretRef without name', { secretRef: {} }],
    ['a capiClusterRef name that is not a string', { capiClusterRef: { name: 1 } }],
  ])('rejects %s', (_name, spec) => {
    expect(validate(cluster(spec))).toBe(false);
  });
});

function dig(node: Record<string, unknown>, ...path: string[]): Record<string, unknown> {
  return path.reduce<Record<string, unknown>>(
    (current, key) => current[key] as Record<string, unknown>,
    node,
  );
}
