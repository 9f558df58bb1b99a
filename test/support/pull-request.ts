/**
 * Pull-request promotions end to end: a simulated forge (forge-sim) beside the kube-sim fleet,
 * a repository whose files mark prod's version with weave's `$promotion` comments, the token
 * Secret the Pipeline names, and Flux's part (read the merged version from Git, roll it out).
 */
import { parseAllDocuments } from 'yaml';
import type { ForgeHandle, ForgeKind } from 'forge-sim';
import type { StrategySpec } from '../../src/pipeline/pipeline-resource.js';
import { APP_NAME, rollOut, type TestFleet } from './gateway-harness.js';

/** The Secret the Pipelines name in `secretRef`. */
export const TOKEN_SECRET = 'forge-token';

/** The repository's files for app namespace `ns`, with prod's values at `version`. */
export function repositoryFiles(ns: string, version: string): Record<string, string> {
  const prod = `{"$promotion": "${ns}:${APP_NAME}:prod"}`;
  const staging = `{"$promotion": "${ns}:${APP_NAME}:staging"}`;
  return {
    'README.md': `# fleet\n\nprod runs ${version}.\n`,
    'envs/prod/podinfo.yaml': [
      '# prod: changed by promotion pull requests only',
      'apiVersion: helm.toolkit.fluxcd.io/v2',
      'kind: HelmRelease',
      'metadata:',
      `  name: ${APP_NAME} # the app`,
      'spec:',
      '  chart:',
      '    spec:',
      `      chart: ${APP_NAME}`,
      `      version: "${version}" # ${prod}`,
      '---',
      '# a second document in the same file',
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata: {name: podinfo-version}',
      'data:',
      `  version: ${version}   # ${prod}`,
      `  pinned: ${version}`,
      '',
    ].join('\n'),
    'envs/prod/image.yml': `image:\n  repository: ghcr.io/stefanprodan/podinfo\n  tag: '${version}' # ${prod}\n`,
    'envs/staging/podinfo.yaml': `version: ${version} # ${staging}\n`,
  };
}

/** What the promotion to `to` must make of `files`: exactly the marked prod values changed. */
export function promotedFiles(
  files: Record<string, string>,
  ns: string,
  from: string,
  to: string,
): Record<string, string> {
  const marker = `{"$promotion": "${ns}:${APP_NAME}:prod"}`;
  return Object.fromEntries(
    Object.entries(files).map(([path, text]) => [
      path,
      text
        .split('\n')
        .map((line) => (line.endsWith(marker) ? line.replace(from, to) : line))
        .join('\n'),
    ]),
  );
}

/** Creates repository `repo` for `ns` and the Secret with `token`; returns the prod strategy. */
export async function prepareRepository(
  fleet: TestFleet,
  forge: ForgeHandle,
  ns: string,
  options: { repo: string; token: string; version: string; files?: Record<string, string> },
): Promise<StrategySpec> {
  await forge.createRepo(options.repo, options.files ?? repositoryFiles(ns, options.version));
  fleet.management.ensureNamespace(ns);
  fleet.management.apply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: TOKEN_SECRET, namespace: ns },
    type: 'Opaque',
    data: { token: Buffer.from(options.token).toString('base64') },
  });
  return {
    'pull-request': {
      type: forge.kind,
      url: `${forge.url}/${options.repo}`,
      baseBranch: 'main',
      secretRef: { name: TOKEN_SECRET },
    },
  };
}

/** A repository name per test namespace and forge. */
export function repoName(kind: ForgeKind, ns: string): string {
  return kind === 'github' ? `acme/${ns}` : `acme/platform/${ns}`;
}

/**
 * Flux's part after a merge: the chart version prod's HelmRelease in Git now names, rolled out
 * on the prod cluster as helm-controller would. Returns that version.
 */
export async function fluxAppliesProd(
  fleet: TestFleet,
  forge: ForgeHandle,
  repo: string,
  ns: string,
): Promise<string> {
  const text = (await forge.readFile(repo, 'main', 'envs/prod/podinfo.yaml')) ?? '';
  const release = parseAllDocuments(text)[0]?.toJS() as
    { spec?: { chart?: { spec?: { version?: string } } } } | undefined;
  const version = release?.spec?.chart?.spec?.version;
  if (version === undefined) throw new Error(`no chart version in ${repo}`);
  rollOut(fleet.prod, ns, version);
  return version;
}
