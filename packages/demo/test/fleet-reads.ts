/**
 * What the story reads from a running demo's fleet besides its commands: prod's HelmRelease
 * and the fleet repository's pull requests, with the demo's own kubeconfig and maintainer token.
 */
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import type { DemoState } from '../src/state.js';

/** The chart versions prod's HelmRelease asks for and has in its release history. */
export async function prodVersions(state: DemoState): Promise<string[]> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(state.kubeconfig);
  kubeConfig.setCurrentContext('prod');
  const release = (await kubeConfig.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
    group: 'helm.toolkit.fluxcd.io',
    version: 'v2',
    plural: 'helmreleases',
    namespace: 'podinfo',
    name: 'podinfo',
  })) as {
    spec: { chart: { spec: { version: string } } };
    status: { history: { chartVersion: string }[] };
  };
  return [release.spec.chart.spec.version, ...release.status.history.map((h) => h.chartVersion)];
}

/** The titles of every pull request on the fleet repository, open or closed. */
export async function pullRequestTitles(state: DemoState): Promise<string[]> {
  const { forge } = state;
  const response = await fetch(`${forge.apiUrl}/repos/${forge.repo}/pulls?state=all`, {
    headers: { authorization: `Bearer ${forge.token}`, accept: 'application/vnd.github+json' },
  });
  if (!response.ok) throw new Error(`the forge answered ${String(response.status)}`);
  return ((await response.json()) as { title: string }[]).map((p) => p.title);
}
