/**
 * The key of an application object in one cluster: what a hint names, what the catalog indexes
 * and what verified state is stored under. The version is left out on purpose, so an event
 * about a `v2` HelmRelease matches a Pipeline whose appRef still says `v2beta1`.
 */

/** Identity of an application object in one cluster. */
export interface ObjectKey {
  readonly cluster: string;
  /** API group without version, e.g. helm.toolkit.fluxcd.io; '' for the core group. */
  readonly group: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

/**
 * A stable string form of an ObjectKey, for maps and coalescing: distinct keys, distinct ids.
 * The two kinds Pipelines nearly always name are abbreviated: an id is kept per target for the
 * life of the process, and "helm.toolkit.fluxcd.io|HelmRelease" would be half of it. A code
 * holds no '|' (a full group and kind hold one), so no abbreviated id equals a full one.
 */
export function objectKeyId(key: ObjectKey): string {
  return `${key.cluster}|${kindCode(key.group, key.kind)}|${key.namespace}|${key.name}`;
}

function kindCode(group: string, kind: string): string {
  if (kind === 'HelmRelease' && group === 'helm.toolkit.fluxcd.io') return 'H';
  if (kind === 'Kustomization' && group === 'kustomize.toolkit.fluxcd.io') return 'K';
  return `${group}|${kind}`;
}

/**
 * The key's five fields as a plain object of their own: for keys handed to what may log them
 * (a queue's entries), where an object that is also a key (the catalog's targets) would show
 * its other fields too.
 */
export function plainKey(key: ObjectKey): ObjectKey {
  const { cluster, group, kind, namespace, name } = key;
  return { cluster, group, kind, namespace, name };
}
