/**
 * The objects flux-config writes are valid Flux objects: each validates against the served
 * storage version's schema of notification-controller's own CRDs (test/fixtures/flux/crds),
 * made strict (an unknown field, which the API server would silently prune, is an error here),
 * with ajv as src/schemas.ts uses it. And they say what they must: the events path of their
 * cluster, namespaces listed literally, a Secret referenced but only written with a key.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import {
  clusterObjects,
  eventsAddress,
  hmacSecret,
  NOTIFICATION_API_VERSION,
  type Manifest,
} from '../../../src/cli/flux-config-objects.js';
import { gatewayEntriesText, newKey, stdoutText } from '../../../src/cli/flux-config-output.js';
import type { ClusterPlan } from '../../../src/cli/flux-config-plan.js';
import { validateShape } from '../../../src/config/schema.js';
import { packagePath } from '../../../src/paths.js';

interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema: { openAPIV3Schema: Record<string, unknown> };
}

/** Marks every object schema that lists its properties closed, as the API server prunes the rest. */
function strict(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strict);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key.startsWith('x-kubernetes-') || key === 'description') continue;
    out[key] =
      key === 'properties'
        ? Object.fromEntries(
            Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, strict(v)]),
          )
        : strict(value);
  }
  if (out.properties !== undefined && out.additionalProperties === undefined)
    out.additionalProperties = false;
  return out;
}

function crdValidator(file: string): { version: string; validate: ValidateFunction } {
  const crd = parse(
    readFileSync(packagePath('test', 'fixtures', 'flux', 'crds', file), 'utf8'),
  ) as {
    spec: { group: string; versions: CrdVersion[] };
  };
  const version = crd.spec.versions.find((v) => v.served && v.storage);
  if (version === undefined) throw new Error(`${file}: no served storage version`);
  const ajv = new Ajv({ allErrors: true, strict: true });
  addFormats.default(ajv);
  return {
    version: `${crd.spec.group}/${version.name}`,
    validate: ajv.compile(strict(version.schema.openAPIV3Schema) as object),
  };
}

const PROVIDER = crdValidator('notification.toolkit.fluxcd.io_providers.yaml');
const ALERT = crdValidator('notification.toolkit.fluxcd.io_alerts.yaml');

function expectValid(object: Manifest): void {
  const { validate, version } = object.kind === 'Provider' ? PROVIDER : ALERT;
  expect(object.apiVersion).toBe(version);
  const ok = validate(object);
  expect(validate.errors ?? [], `${object.kind} ${object.metadata.namespace}`).toEqual([]);
  expect(ok).toBe(true);
}

const DEV: ClusterPlan = {
  name: 'dev',
  gitopsCluster: { namespace: 'flux-system', name: 'dev' },
  configured: true,
  sources: [
    { kind: 'HelmRelease', namespace: 'shop' },
    { kind: 'HelmRelease', namespace: 'team-a' },
    { kind: 'Kustomization', namespace: 'team-a' },
  ],
};
const MANAGEMENT: ClusterPlan = {
  name: 'management',
  configured: false,
  sources: [{ kind: 'Kustomization', namespace: 'infra' }],
};
const OPTIONS = {
  gatewayUrl: 'https://gw.example.com/pg',
  fluxNamespace: 'flux-system',
  perNamespace: false,
};

describe('flux-config objects', () => {
  it('writes the served storage version of both CRDs', () => {
    expect(PROVIDER.version).toBe(NOTIFICATION_API_VERSION);
    expect(ALERT.version).toBe(NOTIFICATION_API_VERSION);
  });

  it('has validators that refuse what Flux refuses or would prune', () => {
    const [provider] = clusterObjects(DEV, OPTIONS).providers;
    const spec = provider?.spec as Record<string, unknown>;
    expect(PROVIDER.validate({ ...provider, spec: { ...spec, adress: 'x' } })).toBe(false);
    expect(PROVIDER.validate({ ...provider, spec: { ...spec, type: 'hmac' } })).toBe(false);
    const [alert] = clusterObjects(DEV, OPTIONS).alerts;
    const source = { kind: 'HelmRelease', name: '*', namespace: '' };
    expect(
      ALERT.validate({ ...alert, spec: { ...(alert?.spec as object), eventSources: [source] } }),
    ).toBe(false);
    const wrongKind = { ...source, namespace: 'a', kind: 'Deployment' };
    expect(
      ALERT.validate({ ...alert, spec: { ...(alert?.spec as object), eventSources: [wrongKind] } }),
    ).toBe(false);
  });

  it('makes one Provider and Alert in the Flux namespace listing every namespace literally', () => {
    const { providers, alerts, secretNamespaces } = clusterObjects(DEV, OPTIONS);
    for (const object of [...providers, ...alerts]) expectValid(object);
    expect(providers).toEqual([
      expect.objectContaining({
        metadata: expect.objectContaining({ name: 'promotion-gateway', namespace: 'flux-system' }),
        spec: {
          type: 'generic-hmac',
          address: 'https://gw.example.com/pg/v1/events/dev',
          secretRef: { name: 'promotion-gateway-hmac' },
        },
      }),
    ]);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]?.spec).toEqual({
      providerRef: { name: 'promotion-gateway' },
      eventSeverity: 'info',
      eventSources: [
        { kind: 'HelmRelease', name: '*', namespace: 'shop' },
        { kind: 'HelmRelease', name: '*', namespace: 'team-a' },
        { kind: 'Kustomization', name: '*', namespace: 'team-a' },
      ],
    });
    expect(secretNamespaces).toEqual(['flux-system']);
  });

  it('makes one Provider, Alert and Secret reference per namespace with --per-namespace', () => {
    const { providers, alerts, secretNamespaces } = clusterObjects(DEV, {
      ...OPTIONS,
      perNamespace: true,
    });
    for (const object of [...providers, ...alerts]) expectValid(object);
    expect(providers.map((p) => p.metadata.namespace)).toEqual(['shop', 'team-a']);
    expect(secretNamespaces).toEqual(['shop', 'team-a']);
    for (const alert of alerts) {
      const sources = (alert.spec as { eventSources: { namespace: string }[] }).eventSources;
      // With --no-cross-namespace-refs an Alert only hears its own namespace.
      expect(sources.every((s) => s.namespace === alert.metadata.namespace)).toBe(true);
    }
    expect(alerts.map((a) => (a.spec as { eventSources: unknown[] }).eventSources.length)).toEqual([
      1, 2,
    ]);
  });

  it('names the cluster in the events path, escaped', () => {
    expect(eventsAddress('http://127.0.0.1:8080', 'dev')).toBe(
      'http://127.0.0.1:8080/v1/events/dev',
    );
    expect(eventsAddress('http://gw', 'ns/name')).toBe('http://gw/v1/events/ns%2Fname');
  });

  it('writes the Secret only with a key: stringData.token holding it', () => {
    const key = newKey();
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key, 'base64url')).toHaveLength(32);
    expect(newKey()).not.toBe(key);
    expect(hmacSecret('flux-system', key)).toMatchObject({
      kind: 'Secret',
      metadata: { name: 'promotion-gateway-hmac', namespace: 'flux-system' },
      stringData: { token: key },
    });
  });

  it('prints valid documents grouped by cluster, with no Secret in them', () => {
    const text = stdoutText([DEV, MANAGEMENT], OPTIONS);
    const docs = parseAllDocuments(text).map((d) => d.toJS() as Manifest);
    expect(docs.map((d) => `${d.kind} ${d.metadata.namespace}`)).toEqual([
      'Provider flux-system',
      'Alert flux-system',
      'Provider flux-system',
      'Alert flux-system',
    ]);
    for (const doc of docs) expectValid(doc);
    expect(text).toContain('# cluster dev (GitopsCluster flux-system/dev): apply in that cluster');
    expect(text).toContain(
      '# cluster management (the management cluster itself): apply in that cluster',
    );
    expect(text).toContain("name: '*'");
    expect(text).not.toContain("namespace: '*'");
    expect(text).toBe(stdoutText([DEV, MANAGEMENT], OPTIONS));
  });

  it('prints gateway clusters entries that pass the configuration schema, keys by file', () => {
    const text = gatewayEntriesText([DEV, MANAGEMENT], {
      keysDir: 'out/promotion-gateway-hmac-keys',
    });
    const entries = parse(text) as { clusters: unknown[] };
    expect(entries.clusters).toEqual([
      {
        name: 'dev',
        gitopsCluster: { namespace: 'flux-system', name: 'dev' },
        hmacKeys: [{ file: '/etc/promotion-gateway/keys/dev' }],
      },
      { name: 'management', hmacKeys: [{ file: '/etc/promotion-gateway/keys/management' }] },
    ]);
    expect(validateShape(entries)).toEqual([]);
    expect(text).toContain('--from-file=out/promotion-gateway-hmac-keys/');
  });
});
