/**
 * The manifests we ship are what we say they are: the Flux Provider/Alert example validates
 * against Flux's own CRDs (through kube-sim's schema validation), ships no Secret and is what
 * `flux-config` generates, and the deployment's embedded configuration passes the gateway's
 * configuration schema.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { clusterObjects } from '../../src/cli/flux-config-objects.js';
import { defaultConfig, type ConfigInput } from '../../src/config/load.js';
import { validateShape } from '../../src/config/schema.js';
import { packagePath } from '../../src/paths.js';
import { applyFiles, startFleet, type Fleet } from 'kube-sim';
import { kustomize, only } from '../support/kustomize.js';

let fleet: Fleet;

beforeAll(async () => {
  fleet = await startFleet({ clusters: ['dev'], admin: false });
});
afterAll(async () => {
  await fleet.close();
});

interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

interface RoleBinding {
  metadata: { namespace?: string };
  roleRef: { name: string };
  subjects: { kind: string; name: string }[];
}

/** The configuration file the base's ConfigMap carries. */
function deployedConfig(): ConfigInput {
  const configMap = only(kustomize('manifests/deploy'), 'ConfigMap');
  const text = (configMap.data as Record<string, string>)['config.yaml'] ?? '';
  return parseAllDocuments(text)[0]?.toJS() as ConfigInput;
}

describe('shipped manifests', () => {
  it('the Flux Provider and Alert example validates against the notification CRDs', async () => {
    const dev = fleet.cluster('dev');
    await applyFiles(dev, [
      packagePath(
        'test',
        'fixtures',
        'flux',
        'crds',
        'notification.toolkit.fluxcd.io_providers.yaml',
      ),
      packagePath('test', 'fixtures', 'flux', 'crds', 'notification.toolkit.fluxcd.io_alerts.yaml'),
    ]);
    const applied = await applyFiles(dev, [
      packagePath('manifests', 'examples', 'flux-provider-alert.yaml'),
    ]);
    // No Secret: a placeholder key applied after the real one would replace it.
    expect(applied.map((o) => o.kind)).toEqual(['Provider', 'Alert']);
    const provider = dev.get(
      'notification.toolkit.fluxcd.io/v1beta3',
      'Provider',
      'flux-system',
      'promotion-gateway',
    );
    expect(provider).toMatchObject({ spec: { type: 'generic-hmac' } });
  });

  it('the Flux example is what `flux-config` writes for its cluster and namespaces', () => {
    const text = readFileSync(
      packagePath('manifests', 'examples', 'flux-provider-alert.yaml'),
      'utf8',
    );
    const example = parseAllDocuments(text).map((d) => d.toJS() as unknown);
    const { providers, alerts } = clusterObjects(
      {
        name: 'dev',
        configured: true,
        sources: [
          { kind: 'HelmRelease', namespace: 'shop' },
          { kind: 'HelmRelease', namespace: 'team-a' },
          { kind: 'Kustomization', namespace: 'team-a' },
        ],
      },
      {
        gatewayUrl: 'https://promotion-gateway.example.com',
        fluxNamespace: 'flux-system',
        perNamespace: false,
      },
    );
    expect(example).toEqual([...providers, ...alerts]);
    expect(text).toContain('promotion-gateway flux-config');
  });

  it('the deployment configuration passes the configuration schema', () => {
    expect(validateShape(deployedConfig())).toEqual([]);
  });

  it('lets the gateway hold its leader-election Lease where the configuration puts it', () => {
    const docs = kustomize('manifests/deploy');
    // The key files exist only in a real pod; the clusters do not matter here.
    const config = defaultConfig({ ...deployedConfig(), clusters: [] });
    const { namespace } = config.leaderElection;
    const roles = docs.filter((d) => d.kind === 'Role' && d.metadata.namespace === namespace);
    const rules = roles.flatMap((r) => r.rules as PolicyRule[]);
    const lease = rules.find(
      (r) => r.apiGroups.includes('coordination.k8s.io') && r.resources.includes('leases'),
    );
    expect(lease?.verbs).toEqual(expect.arrayContaining(['get', 'create', 'update']));
    const bound = docs.some((d) => {
      const binding = d as unknown as RoleBinding;
      return (
        d.kind === 'RoleBinding' &&
        binding.metadata.namespace === namespace &&
        roles.some((r) => r.metadata.name === binding.roleRef.name) &&
        binding.subjects.some((s) => s.kind === 'ServiceAccount' && s.name === 'promotion-gateway')
      );
    });
    expect(bound).toBe(true);
  });
});
