import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readSchema } from '../../../src/schemas.js';
import { prunedStatusFields, type SchemaNode } from '../../../src/status/kept-fields.js';

const ours = readSchema('pipeline.schema.json');

/** The v1alpha1 openAPIV3Schema of a CRD file. */
function crdSchema(path: string): SchemaNode {
  const crd = parse(readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8')) as {
    spec: { versions: { name: string; schema: { openAPIV3Schema: SchemaNode } }[] };
  };
  const version = crd.spec.versions.find((v) => v.name === 'v1alpha1');
  if (version === undefined) throw new Error(`${path} has no v1alpha1`);
  return version.schema.openAPIV3Schema;
}

describe('prunedStatusFields', () => {
  it("finds nothing lost with this project's CRD", () => {
    expect(
      prunedStatusFields(ours, crdSchema('manifests/crd/pipelines.weave.works_pipelines.yaml')),
    ).toEqual([]);
  });

  it("names what weave-gitops' own CRD would prune: the promotion records among them", () => {
    const lost = prunedStatusFields(
      ours,
      crdSchema('test/fixtures/weave-gitops/pipelines.weave.works_pipelines.yaml'),
    );
    expect(lost).toContain('status.environments.*.promotion');
    expect(lost).toContain('status.environments.*.history');
    expect(lost).toContain('status.halts');
    expect(lost).toContain('status.environments.*.targets[].observedTime');
    // Fields both declare are not reported, nor the fields of a lost object one by one.
    expect(lost).not.toContain('status.environments.*.targets[].revision');
    expect(lost).not.toContain('status.environments.*.promotion.revision');
  });

  it('reports fields one by one where the installed object is declared but narrower', () => {
    const lost = prunedStatusFields(
      ours,
      crdSchema(
        'test/fixtures/weave-gitops/with-promotion-status/pipelines.weave.works_pipelines.yaml',
      ),
    );
    expect(lost).toContain('status.environments.*.promotion.phase');
    expect(lost).toContain('status.environments.*.promotion.claimedBy');
    expect(lost).not.toContain('status.environments.*.promotion');
  });

  it('keeps everything below x-kubernetes-preserve-unknown-fields or an open map', () => {
    const status = (node: SchemaNode): SchemaNode => ({ properties: { status: node } });
    expect(
      prunedStatusFields(ours, status({ 'x-kubernetes-preserve-unknown-fields': true })),
    ).toEqual([]);
    const openEnvironments = status({
      properties: {
        conditions: { items: { 'x-kubernetes-preserve-unknown-fields': true } },
        observedGeneration: { type: 'integer' },
        halts: { 'x-kubernetes-preserve-unknown-fields': true },
        outbox: { 'x-kubernetes-preserve-unknown-fields': true },
        environments: { type: 'object', additionalProperties: true },
      },
    });
    expect(prunedStatusFields(ours, openEnvironments)).toEqual([]);
  });

  it('under x-kubernetes-preserve-unknown-fields, still checks what the installed schema declares', () => {
    const lost = prunedStatusFields(ours, {
      properties: {
        status: {
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { halts: { type: 'array', items: { properties: { id: {} } } } },
        },
      },
    });
    expect(lost).toContain('status.halts[].reason');
    expect(lost).not.toContain('status.halts[].id');
    expect(lost.every((path) => path.startsWith('status.halts[]'))).toBe(true);
  });

  it('loses the whole status when the installed CRD declares none', () => {
    expect(prunedStatusFields(ours, { properties: { spec: {} } })).toEqual(['status']);
  });
});
