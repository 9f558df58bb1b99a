import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loggedRevision, objectKeyFor } from '../../../src/ingress/flux-event-key.js';
import { AJV_OPTIONS, validationMessage } from '../../../src/ingress/route-schemas.js';
import { packagePath } from '../../../src/paths.js';
import { compileSchema } from '../../../src/schemas.js';

const dir = packagePath('test', 'fixtures', 'flux', 'events');
const bodies = readdirSync(dir).filter(
  (name) => name.endsWith('.json') && !name.endsWith('.meta.json'),
);
const valid = { involvedObject: { kind: 'HelmRelease', name: 'a', namespace: 'b' } };

// The schema file as the events route checks it: fastify's ajv with the gateway's options.
const validate = compileSchema('flux-event.schema.json', AJV_OPTIONS.customOptions);
function validateFluxEvent(body: unknown): { ok: boolean; message: string } {
  const ok = validate(body);
  return { ok, message: ok ? '' : validationMessage(validate.errors ?? []) };
}

describe('schemas/flux-event.schema.json as the events route checks it', () => {
  it('finds all seven fixture bodies', () => {
    expect(bodies).toHaveLength(7);
  });

  it.each(bodies)('accepts fixture %s', (name) => {
    const result = validateFluxEvent(JSON.parse(readFileSync(`${dir}/${name}`, 'utf8')));
    expect(result).toMatchObject({ ok: true });
  });

  it('allows unknown top-level properties', () => {
    expect(validateFluxEvent({ ...valid, futureField: { x: 1 } }).ok).toBe(true);
  });

  it.each([
    ['missing involvedObject', '(body)', {}],
    ['non-object', '(body)', []],
    [
      'long name',
      '/involvedObject/name',
      { involvedObject: { ...valid.involvedObject, name: 'n'.repeat(254) } },
    ],
    [
      'long namespace',
      '/involvedObject/namespace',
      { involvedObject: { ...valid.involvedObject, namespace: 'n'.repeat(64) } },
    ],
    [
      'long kind',
      '/involvedObject/kind',
      { involvedObject: { ...valid.involvedObject, kind: 'K'.repeat(64) } },
    ],
    ['bad severity', '/severity', { ...valid, severity: 'warning' }],
    ['bad timestamp', '/timestamp', { ...valid, timestamp: 'yesterday' }],
    ['huge message', '/message', { ...valid, message: 'm'.repeat(65_537) }],
    ['non-string metadata', '/metadata/a', { ...valid, metadata: { a: 1 } }],
    [
      'too much metadata',
      '/metadata',
      {
        ...valid,
        metadata: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v'])),
      },
    ],
  ])('rejects %s, naming %s', (_label, path, body) => {
    const result = validateFluxEvent(body);
    expect(result.ok).toBe(false);
    expect(result.message).toContain(path);
  });
});

describe('objectKeyFor', () => {
  it('maps HelmRelease and Kustomization to their groups', () => {
    expect(objectKeyFor('c', { kind: 'HelmRelease', name: 'n', namespace: 'ns' })).toEqual({
      cluster: 'c',
      group: 'helm.toolkit.fluxcd.io',
      kind: 'HelmRelease',
      namespace: 'ns',
      name: 'n',
    });
    expect(
      objectKeyFor('c', {
        kind: 'Kustomization',
        apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
        name: 'n',
        namespace: 'ns',
      })?.group,
    ).toBe('kustomize.toolkit.fluxcd.io');
    expect(
      objectKeyFor('c', {
        kind: 'HelmRelease',
        apiVersion: 'helm.toolkit.fluxcd.io/v2beta2',
        name: 'n',
        namespace: 'ns',
      }),
    ).toBeDefined();
  });

  it('produces nothing for other kinds or an inconsistent apiVersion', () => {
    expect(
      objectKeyFor('c', { kind: 'GitRepository', name: 'n', namespace: 'ns' }),
    ).toBeUndefined();
    expect(
      objectKeyFor('c', { kind: 'HelmRelease', apiVersion: 'v1', name: 'n', namespace: 'ns' }),
    ).toBeUndefined();
    expect(
      objectKeyFor('c', {
        kind: 'Kustomization',
        apiVersion: 'helm.toolkit.fluxcd.io/v2',
        name: 'n',
        namespace: 'ns',
      }),
    ).toBeUndefined();
    expect(objectKeyFor('c', { kind: 'toString', name: 'n', namespace: 'ns' })).toBeUndefined();
  });
});

describe('loggedRevision', () => {
  it('reads plain and prefixed revision keys', () => {
    expect(loggedRevision({ ...valid, metadata: { revision: '1' } })).toBe('1');
    expect(
      loggedRevision({ ...valid, metadata: { 'kustomize.toolkit.fluxcd.io/revision': '2' } }),
    ).toBe('2');
    expect(loggedRevision(valid)).toBeUndefined();
  });
});
