/**
 * The one table of Flux application kinds the gateway verifies: their API group, REST plural,
 * and for each served version where the deployed revision is read from. Ingress (which events
 * are hints), verify (how to read an object) and kube (REST paths, version fallback) all use it.
 */
import { parseApiVersion } from './api-version.js';

/** Where a version reports the deployed revision. */
export type RevisionSource = 'helmHistory' | 'lastAppliedRevision';

/** One Flux application kind. */
export interface FluxAppKind {
  readonly kind: 'HelmRelease' | 'Kustomization';
  readonly group: string;
  readonly plural: string;
  /** Versions newest first, each with where it reports the deployed revision. */
  readonly versions: readonly { readonly version: string; readonly revision: RevisionSource }[];
}

/** A kind's entry, from its versions newest first with where each reports the revision. */
function appKind(
  kind: FluxAppKind['kind'],
  group: string,
  plural: string,
  versions: readonly [string, RevisionSource][],
): FluxAppKind {
  return {
    kind,
    group,
    plural,
    versions: versions.map(([version, revision]) => ({ version, revision })),
  };
}

// helm-controller v2 dropped lastAppliedRevision; v2beta2 already carries the history snapshots.
const KINDS: readonly FluxAppKind[] = [
  appKind('HelmRelease', 'helm.toolkit.fluxcd.io', 'helmreleases', [
    ['v2', 'helmHistory'],
    ['v2beta2', 'helmHistory'],
    ['v2beta1', 'lastAppliedRevision'],
  ]),
  appKind('Kustomization', 'kustomize.toolkit.fluxcd.io', 'kustomizations', [
    ['v1', 'lastAppliedRevision'],
    ['v1beta2', 'lastAppliedRevision'],
  ]),
];

/** The kinds' names, e.g. for metric labels known in advance. */
export const FLUX_APP_KIND_NAMES: readonly FluxAppKind['kind'][] = KINDS.map((k) => k.kind);

// A Map, not an object literal: kinds like `toString` must not hit Object.prototype.
const BY_KIND: ReadonlyMap<string, FluxAppKind> = new Map(KINDS.map((k) => [k.kind, k]));

/** The application kind named `kind`, whatever its version; undefined for anything else. */
export function fluxAppKind(kind: string): FluxAppKind | undefined {
  return BY_KIND.get(kind);
}

/** Where `apiVersion`/`kind` reports its revision; undefined when not a supported version. */
export function revisionSourceOf(apiVersion: string, kind: string): RevisionSource | undefined {
  const app = BY_KIND.get(kind);
  const { group, version } = parseApiVersion(apiVersion);
  if (app?.group !== group) return undefined;
  return app.versions.find((v) => v.version === version)?.revision;
}

/**
 * apiVersions to try for an app object, newest first, then the one the Pipeline names.
 * Pipelines written for v2beta1 must keep working on clusters that serve only v2.
 */
export function apiVersionCandidates(apiVersion: string, kind: string): string[] {
  const { group } = parseApiVersion(apiVersion);
  const app = BY_KIND.get(kind);
  const known = app?.group === group ? app.versions.map((v) => `${group}/${v.version}`) : [];
  return [...new Set([...known, apiVersion])];
}
