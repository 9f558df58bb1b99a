/**
 * Helpers for `group/version` strings. Hint keys ignore the version so that an event about a
 * `v2` HelmRelease matches a Pipeline whose appRef still says `v2beta1`.
 */

/** The API group of an apiVersion: 'helm.toolkit.fluxcd.io/v2' -> 'helm.toolkit.fluxcd.io'; 'v1' -> ''. */
export function apiGroupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** The version part of an apiVersion: 'helm.toolkit.fluxcd.io/v2beta1' -> 'v2beta1'. */
export function apiVersionOnly(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
}

const kubeVersion = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/** Stability rank: GA above beta above alpha, as Kubernetes orders versions. */
function stabilityOf(level: string | undefined): number {
  if (level === undefined) return 2;
  return level === 'beta' ? 1 : 0;
}

/**
 * Orders versions by Kubernetes priority (apimachinery's CompareKubeAwareVersionStrings):
 * GA > beta > alpha, then higher major, then higher minor; non-Kubernetes-style versions last,
 * alphabetically. Negative when `a` is preferred over `b`.
 */
export function compareKubeVersions(a: string, b: string): number {
  const ma = kubeVersion.exec(a);
  const mb = kubeVersion.exec(b);
  if (ma === null || mb === null) {
    if (ma !== null) return -1;
    if (mb !== null) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const stability = stabilityOf(mb[2]) - stabilityOf(ma[2]);
  if (stability !== 0) return stability;
  const major = Number(mb[1]) - Number(ma[1]);
  if (major !== 0) return major;
  return Number(mb[3] ?? 0) - Number(ma[3] ?? 0);
}

/** Sorts full apiVersions of one group, most preferred first (see compareKubeVersions). */
export function sortApiVersions(apiVersions: Iterable<string>): string[] {
  return [...apiVersions].sort((a, b) => {
    const byVersion = compareKubeVersions(apiVersionOnly(a), apiVersionOnly(b));
    if (byVersion !== 0) return byVersion;
    return a < b ? -1 : a > b ? 1 : 0;
  });
}
