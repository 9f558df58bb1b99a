/**
 * `group/version` strings, parsed and ordered as Kubernetes does.
 */

/** Splits `group/version` (or a core `version`) into its parts. */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash === -1
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

const kubeVersion = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/** Stability rank: GA above beta above alpha, as Kubernetes orders versions. */
function stabilityOf(level: string | undefined): number {
  if (level === undefined) return 2;
  return level === 'beta' ? 1 : 0;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
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
    return compareText(a, b);
  }
  const stability = stabilityOf(mb[2]) - stabilityOf(ma[2]);
  if (stability !== 0) return stability;
  const major = Number(mb[1]) - Number(ma[1]);
  if (major !== 0) return major;
  return Number(mb[3] ?? 0) - Number(ma[3] ?? 0);
}

/** Sorts full apiVersions, most preferred version first (see compareKubeVersions). */
export function sortApiVersions(apiVersions: Iterable<string>): string[] {
  return [...apiVersions].sort((a, b) => {
    const byVersion = compareKubeVersions(parseApiVersion(a).version, parseApiVersion(b).version);
    return byVersion !== 0 ? byVersion : compareText(a, b);
  });
}
