/**
 * The kustomize bases a platform team applies as-is: least privilege exactly as the gateway
 * needs it (src/kube/access.ts), metrics off the port Flux reaches, two replicas that survive a
 * drain, a shutdown that drains before the grace period ends, and a hardened pod.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { ConfigInput } from '../../src/config/load.js';
import { managementAccess, TARGET_ACCESS, type AccessRule } from '../../src/kube/access.js';
import { packagePath } from '../../src/paths.js';
import { kustomize, only, type Rendered } from '../support/kustomize.js';

interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}
interface Container {
  ports: { name: string; containerPort: number }[];
  securityContext: Record<string, unknown>;
  lifecycle: { preStop: { exec: { command: string[] } } };
  image: string;
}
interface PodSpec {
  terminationGracePeriodSeconds: number;
  securityContext: Record<string, unknown>;
  topologySpreadConstraints: { topologyKey: string }[];
  containers: Container[];
}

const base = kustomize('manifests/deploy');
const deployment = only(base, 'Deployment');
const pod = (deployment.spec as { template: { metadata: Rendered['metadata']; spec: PodSpec } })
  .template;
const [container] = pod.spec.containers;
const config = parseAllDocuments(
  (only(base, 'ConfigMap').data as Record<string, string>)['config.yaml'] ?? '',
)[0]?.toJS() as ConfigInput;

/** `group/resource verb` for every grant, the way access.ts and RBAC rules both say it. */
function grants(rules: readonly PolicyRule[]): string[] {
  return rules
    .flatMap((r) =>
      r.apiGroups.flatMap((g) =>
        r.resources.flatMap((res) =>
          r.verbs.map((v) => `${res}${g === '' ? '' : `.${g}`} ${v}${named(r.resourceNames)}`),
        ),
      ),
    )
    .sort();
}
function required(rules: readonly AccessRule[]): string[] {
  return rules
    .flatMap((r) =>
      r.resources.flatMap((res) => r.verbs.map((v) => `${qualified(res)} ${v}${named(r.names)}`)),
    )
    .sort();
}
/** A grant limited to some objects says which: `secrets get` grants all, ` [a, b]` these. */
function named(names: readonly string[] | undefined): string {
  return names === undefined ? '' : ` [${names.join(', ')}]`;
}
// access.ts writes `plural.group/subresource`; RBAC writes `plural/subresource` in a group.
function qualified(resource: string): string {
  const [plural = '', sub] = resource.split('/');
  const [name = '', ...group] = plural.split('.');
  const withSub = sub === undefined ? name : `${name}/${sub}`;
  return group.length === 0 ? withSub : `${withSub}.${group.join('.')}`;
}
/** Rules of every (Cluster)Role bound to `account`. */
function boundRules(objects: readonly Rendered[], account: string): PolicyRule[] {
  const bindings = objects.filter(
    (o) =>
      (o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding') &&
      (o.subjects as { name: string }[]).some((s) => s.name === account),
  );
  return bindings.flatMap((b) => {
    const ref = b.roleRef as { kind: string; name: string };
    const role = objects.find(
      (o) =>
        o.kind === ref.kind &&
        o.metadata.name === ref.name &&
        (ref.kind === 'ClusterRole' || o.metadata.namespace === b.metadata.namespace),
    );
    return (role?.rules ?? []) as PolicyRule[];
  });
}

describe('manifests/deploy', () => {
  it('grants the gateway exactly what src/kube/access.ts requires, Secrets per namespace', () => {
    const namespace = config.leaderElection?.namespace ?? '';
    expect(grants(boundRules(base, 'promotion-gateway'))).toEqual(
      required(managementAccess(namespace)),
    );
    const clusterWide = grants(
      base.filter((o) => o.kind === 'ClusterRole').flatMap((o) => o.rules as PolicyRule[]),
    );
    expect(clusterWide.filter((g) => g.startsWith('secrets'))).toEqual([]);
    const secretRoles = base.filter(
      (o) => o.kind === 'Role' && grants(o.rules as PolicyRule[]).includes('secrets get'),
    );
    expect(secretRoles.map((r) => r.metadata.namespace)).toEqual(['flux-system']);
  });

  it('serves /metrics on a port of its own that the Flux-facing Service does not expose', () => {
    const metrics = container?.ports.find((p) => p.name === 'metrics');
    expect(config.server?.metricsPort).toBe(metrics?.containerPort);
    const flux = only(base, 'Service', 'promotion-gateway').spec as {
      ports: { targetPort: string }[];
    };
    expect(flux.ports.map((p) => p.targetPort)).toEqual(['http']);
    const scrape = only(base, 'Service', 'promotion-gateway-metrics').spec as {
      ports: { targetPort: string }[];
    };
    expect(scrape.ports.map((p) => p.targetPort)).toEqual(['metrics']);
    const policy = only(base, 'NetworkPolicy').spec as {
      ingress: { from?: unknown[]; ports: { port: string }[] }[];
    };
    const metricsRule = policy.ingress.find((r) => r.ports.some((p) => p.port === 'metrics'));
    expect(metricsRule?.from).toEqual([
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } },
    ]);
  });

  it('runs two spread replicas that a drain cannot take down together', () => {
    const spec = deployment.spec as { replicas: number; selector: { matchLabels: object } };
    expect(spec.replicas).toBe(2);
    expect(pod.metadata.labels).toMatchObject(spec.selector.matchLabels);
    const pdb = only(base, 'PodDisruptionBudget').spec as {
      minAvailable: number;
      selector: { matchLabels: object };
    };
    expect(pdb.minAvailable).toBe(1);
    expect(pod.metadata.labels).toMatchObject(pdb.selector.matchLabels);
    expect(pod.spec.topologySpreadConstraints.map((c) => c.topologyKey)).toEqual([
      'topology.kubernetes.io/zone',
      'kubernetes.io/hostname',
    ]);
  });

  it('drains within the grace period: preStop pause plus the request timeout fit', () => {
    const command = container?.lifecycle.preStop.exec.command.join(' ') ?? '';
    const pauseMs = Number(/setTimeout\(\(\) => \{\}, (\d+)\)/.exec(command)?.[1]);
    expect(pauseMs).toBeGreaterThan(0);
    const requestTimeoutMs = config.server?.requestTimeoutMs ?? 10_000;
    expect(pod.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(
      pauseMs + requestTimeoutMs,
    );
  });

  it('runs hardened, as the image user', () => {
    const imageUser = /^USER (\d+):(\d+)$/m.exec(readFileSync(packagePath('Dockerfile'), 'utf8'));
    expect(pod.spec.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: Number(imageUser?.[1]),
      runAsGroup: Number(imageUser?.[2]),
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container?.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
  });

  it('labels every object with the recommended labels', () => {
    for (const object of base)
      expect(object.metadata.labels, `${object.kind} ${object.metadata.name}`).toMatchObject({
        'app.kubernetes.io/name': 'promotion-gateway',
        'app.kubernetes.io/part-of': 'promotion-gateway',
        'app.kubernetes.io/managed-by': 'kustomize',
      });
  });
});

describe('overlays and the target base', () => {
  it('pins the image by digest', () => {
    const pinned = only(kustomize('manifests/overlays/pinned'), 'Deployment');
    const spec = pinned.spec as { template: { spec: PodSpec } };
    expect(spec.template.spec.containers[0]?.image).toMatch(/@sha256:[0-9a-f]{64}$/);
  });

  it('points a ServiceMonitor at the metrics Service only', () => {
    const objects = kustomize('manifests/overlays/servicemonitor');
    const monitor = only(objects, 'ServiceMonitor').spec as {
      selector: { matchLabels: Record<string, string> };
      endpoints: { port: string }[];
    };
    const selected = objects.filter(
      (o) =>
        o.kind === 'Service' &&
        Object.entries(monitor.selector.matchLabels).every(
          ([k, v]) => o.metadata.labels?.[k] === v,
        ),
    );
    expect(selected.map((s) => s.metadata.name)).toEqual(['promotion-gateway-metrics']);
    expect(monitor.endpoints.map((e) => e.port)).toEqual(['metrics']);
  });

  it("adds a shard as a gateway of its own that shares the base's account, RBAC and keys", () => {
    const shard = kustomize('manifests/overlays/shard');
    expect(shard.map((o) => `${o.kind} ${o.metadata.name}`).sort()).toEqual(
      [
        `ConfigMap ${only(shard, 'ConfigMap').metadata.name}`,
        'Deployment promotion-gateway-eu',
        'NetworkPolicy promotion-gateway-eu',
        'PodDisruptionBudget promotion-gateway-eu',
        'Service promotion-gateway-eu',
        'Service promotion-gateway-metrics-eu',
      ].sort(),
    );
    expect(only(shard, 'ConfigMap').metadata.name).toMatch(/^promotion-gateway-eu-/);
    // Every selector picks the shard's pods, and no base selector does, nor the reverse.
    const selectors = (objects: readonly Rendered[]) =>
      objects.flatMap((o) => {
        const spec = (o.spec ?? {}) as {
          selector?: Record<string, string> & { matchLabels?: Record<string, string> };
          podSelector?: { matchLabels: Record<string, string> };
        };
        const found = spec.podSelector?.matchLabels ?? spec.selector?.matchLabels ?? spec.selector;
        return found === undefined ? [] : [found['app.kubernetes.io/instance']];
      });
    expect(new Set(selectors(shard))).toEqual(new Set(['promotion-gateway-eu']));
    expect(new Set(selectors(base))).toEqual(new Set(['promotion-gateway']));
    const shardPod = (
      only(shard, 'Deployment').spec as {
        template: { metadata: Rendered['metadata']; spec: PodSpec };
      }
    ).template;
    expect(shardPod.metadata.labels?.['app.kubernetes.io/instance']).toBe('promotion-gateway-eu');
    const account = (p: typeof pod) =>
      (p.spec as unknown as { serviceAccountName: string }).serviceAccountName;
    expect(account(shardPod)).toBe(account(pod));
    expect(JSON.stringify(shardPod.spec)).toContain('"secretName":"promotion-gateway-hmac-keys"');
    // Its config is the base's plus its shard: the same clusters and keys.
    const shardConfig = parseAllDocuments(
      (only(shard, 'ConfigMap').data as Record<string, string>)['config.yaml'] ?? '',
    )[0]?.toJS() as ConfigInput;
    const { sharding, ...rest } = shardConfig;
    expect(rest).toEqual(config);
    expect(sharding).toEqual({ name: 'eu', pipelineSelector: 'promotion-gateway.io/shard=eu' });
  });

  it('gives the target reader exactly TARGET_ACCESS, and a token Secret for it', () => {
    const target = kustomize('manifests/target');
    expect(grants(boundRules(target, 'promotion-gateway-reader'))).toEqual(required(TARGET_ACCESS));
    expect(only(target, 'Secret')).toMatchObject({
      type: 'kubernetes.io/service-account-token',
      metadata: {
        annotations: { 'kubernetes.io/service-account.name': 'promotion-gateway-reader' },
      },
    });
  });
});
