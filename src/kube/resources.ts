/**
 * API coordinates of the kinds the gateway touches. Custom resources have no discovery-free
 * way to know their plural, so the few we use are listed here.
 */

/** Group/version/plural of a kind, as used in REST paths. */
export interface ResourceCoordinates {
  group: string;
  version: string;
  plural: string;
}

const plurals: Readonly<Record<string, string>> = {
  HelmRelease: 'helmreleases',
  Kustomization: 'kustomizations',
  Pipeline: 'pipelines',
  GitopsCluster: 'gitopsclusters',
};

/** Splits `group/version` (or a core `version`) into its parts. */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash === -1
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** Coordinates for apiVersion/kind, or undefined for a kind the gateway does not read. */
export function coordinatesFor(apiVersion: string, kind: string): ResourceCoordinates | undefined {
  const plural = plurals[kind];
  if (plural === undefined) return undefined;
  return { ...parseApiVersion(apiVersion), plural };
}

/** The Pipeline custom resource (weave-gitops), served version v1alpha1. */
export const PIPELINE: ResourceCoordinates = {
  group: 'pipelines.weave.works',
  version: 'v1alpha1',
  plural: 'pipelines',
};

/** The GitopsCluster custom resource (weave-gitops). */
export const GITOPS_CLUSTER: ResourceCoordinates = {
  group: 'gitops.weave.works',
  version: 'v1alpha1',
  plural: 'gitopsclusters',
};

const preferredVersions: Readonly<Record<string, readonly string[]>> = {
  'helm.toolkit.fluxcd.io/HelmRelease': ['v2', 'v2beta2', 'v2beta1'],
  'kustomize.toolkit.fluxcd.io/Kustomization': ['v1', 'v1beta2'],
};

/**
 * apiVersions to try for an app object, newest first, then the one the Pipeline names.
 * Pipelines written for v2beta1 must keep working on clusters that serve only v2.
 */
export function apiVersionCandidates(apiVersion: string, kind: string): string[] {
  const { group } = parseApiVersion(apiVersion);
  const known = preferredVersions[`${group}/${kind}`] ?? [];
  return [...new Set([...known.map((v) => `${group}/${v}`), apiVersion])];
}
