/**
 * manifests/examples/flux-install/, the Flux install of docs/operations.md ("Install and update
 * with Flux"): every file parses and `kubectl kustomize` renders it; its Kustomizations apply
 * folders that exist, in order; the gateway's, applied the way kustomize-controller applies it
 * (its patches and images added to the kustomization.yaml of manifests/deploy), builds with this
 * fleet's configuration and image; and the image policies follow the tag scheme the docs give.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { packagePath } from '../../src/paths.js';
import { kustomize, only, type Rendered } from '../support/kustomize.js';
import { tempDir } from '../support/temp-dirs.js';

const EXAMPLE = 'manifests/examples/flux-install';
const rendered = kustomize(EXAMPLE);
const version = (
  JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }
).version;

interface FluxKustomizationSpec {
  path: string;
  sourceRef: { kind: string; name: string };
  dependsOn?: { name: string }[];
  images?: { name: string; newName: string; newTag: string }[];
  patches?: { target: { kind: string; name: string }; patch: string }[];
}

function fluxKustomization(name: string): FluxKustomizationSpec {
  return only(rendered, 'Kustomization', name).spec as FluxKustomizationSpec;
}

/** What kustomize-controller builds for `spec`: its patches and images added to the path's own kustomization.yaml. */
function asKustomizeControllerBuilds(spec: FluxKustomizationSpec): Rendered[] {
  const dir = join(tempDir('flux-build-'), 'source');
  cpSync(packagePath(spec.path), dir, { recursive: true });
  const file = join(dir, 'kustomization.yaml');
  const own = parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  writeFileSync(file, stringify({ ...own, patches: spec.patches, images: spec.images }));
  const text = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
  return parseAllDocuments(text).map((d) => d.toJS() as Rendered);
}

/** `major.minor.patch` as numbers, for the `>=a <b` ranges the policies use. */
function semver(text: string): number[] {
  return text.split('.').map(Number);
}
function before(a: number[], b: number[]): boolean {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) < (b[i] ?? 0);
  return false;
}
function inRange(v: string, range: string): boolean {
  const [, low = '', high = ''] = /^>=(\S+) <(\S+)$/.exec(range) ?? [];
  return !before(semver(v), semver(low)) && before(semver(v), semver(high));
}

describe('the Flux install example', () => {
  it('parses file by file and renders the source, the Kustomizations and the image automation', () => {
    for (const file of readdirSync(packagePath(EXAMPLE)).filter((f) => f.endsWith('.yaml')))
      for (const doc of parseAllDocuments(readFileSync(packagePath(EXAMPLE, file), 'utf8')))
        expect(doc.errors, file).toEqual([]);
    expect(rendered.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      'GitRepository/promotion-gateway',
      'ImagePolicy/promotion-gateway',
      'ImagePolicy/promotion-gateway-main',
      'ImageRepository/promotion-gateway',
      'ImageUpdateAutomation/promotion-gateway',
      'Kustomization/promotion-gateway',
      'Kustomization/promotion-gateway-crds',
      'Kustomization/promotion-gateway-monitoring',
    ]);
    for (const object of rendered) expect(object.metadata.namespace).toBe('flux-system');
  });

  it('applies folders of this repository from its GitRepository, CRDs first, monitoring last', () => {
    const names = ['promotion-gateway-crds', 'promotion-gateway', 'promotion-gateway-monitoring'];
    for (const name of names) {
      const spec = fluxKustomization(name);
      expect(spec.sourceRef).toEqual({ kind: 'GitRepository', name: 'promotion-gateway' });
      expect(existsSync(packagePath(spec.path)), spec.path).toBe(true);
    }
    expect(fluxKustomization('promotion-gateway').dependsOn).toEqual([
      { name: 'promotion-gateway-crds' },
    ]);
    expect(fluxKustomization('promotion-gateway-monitoring').dependsOn).toEqual([
      { name: 'promotion-gateway' },
    ]);
    expect(fluxKustomization('promotion-gateway-crds')).toMatchObject({ prune: false });
  });

  it('builds manifests/deploy with the fleet configuration and image, as kustomize-controller would', () => {
    const objects = asKustomizeControllerBuilds(fluxKustomization('promotion-gateway'));
    const container = (
      only(objects, 'Deployment').spec as {
        template: { spec: { containers: { image: string }[] } };
      }
    ).template.spec.containers[0];
    expect(container?.image).toBe(`registry.example.com/platform/promotion-gateway:${version}`);
    const map = objects.find((o) => o.kind === 'ConfigMap');
    // The configuration's content names the ConfigMap, so a change rolls the Deployment.
    expect(map?.metadata.name).toMatch(/^promotion-gateway-[a-z0-9]{10}$/);
    const config = parse((map?.data as Record<string, string>)['config.yaml'] ?? '') as {
      server: { metricsPort: number };
      leaderElection: { namespace: string };
      clusters: { name: string }[];
    };
    expect(config.clusters.map((c) => c.name)).toEqual(['management', 'staging', 'prod']);
    // What the base relies on stays: the container's metrics port and the Lease Role's namespace.
    const ports = (
      only(objects, 'Deployment').spec as {
        template: { spec: { containers: { ports: { name: string; containerPort: number }[] }[] } };
      }
    ).template.spec.containers[0]?.ports;
    expect(ports?.find((p) => p.name === 'metrics')?.containerPort).toBe(config.server.metricsPort);
    expect(only(objects, 'Role', 'promotion-gateway-leader-election').metadata.namespace).toBe(
      config.leaderElection.namespace,
    );
  });

  it('marks the image for the release policy, which takes the version this tree releases', () => {
    const text = readFileSync(packagePath(EXAMPLE, 'gateway.yaml'), 'utf8');
    const markers = [...text.matchAll(/# (\{"\$imagepolicy": "[^"]+"\})/g)].map(
      (m) => (JSON.parse(m[1] ?? '{}') as { $imagepolicy: string }).$imagepolicy,
    );
    expect(markers).toEqual([
      'flux-system:promotion-gateway:name',
      'flux-system:promotion-gateway:tag',
    ]);
    const release = only(rendered, 'ImagePolicy', 'promotion-gateway').spec as {
      policy: { semver: { range: string } };
    };
    expect(inRange(version, release.policy.semver.range)).toBe(true);
    const source = only(rendered, 'GitRepository').spec as { ref: { semver: string } };
    expect(source.ref.semver).toBe(release.policy.semver.range);
    expect(fluxKustomization('promotion-gateway').images?.[0]?.newTag).toBe(version);
    // The base names the image by the same release tag: X.Y.Z, the package's version.
    const base = readFileSync(packagePath('manifests/deploy/gateway/deployment.yaml'), 'utf8');
    expect(base).toContain(`image: ghcr.io/example/promotion-gateway:${version}\n`);
  });

  it('orders the immutable build tags by the commit time in them, and skips release tags', () => {
    const main = only(rendered, 'ImagePolicy', 'promotion-gateway-main').spec as {
      filterTags: { pattern: string; extract: string };
      policy: { numerical: { order: string } };
    };
    // RE2's named group (?P<n>...) is JavaScript's (?<n>...).
    const pattern = new RegExp(main.filterTags.pattern.replace('(?P<', '(?<'));
    const tag = 'sha-3468e5d-1796650000';
    expect(pattern.exec(tag)?.groups?.ts).toBe('1796650000');
    expect(main.filterTags.extract).toBe('$ts');
    expect(main.policy.numerical.order).toBe('asc');
    for (const other of [version, `v${version}`, 'sha-3468e5d', 'latest'])
      expect(pattern.test(other), other).toBe(false);
  });
});
