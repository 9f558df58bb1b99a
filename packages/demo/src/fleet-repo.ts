/**
 * The demo's Git side: a simulated GitHub (forge-sim) holding `acme/fleet`, the repository Flux
 * would sync, with one HelmRelease per environment; prod's chart version carries weave's
 * `$promotion` marker, so the gateway promotes prod by pull request. The token the gateway
 * pushes with lives in a Secret beside the Pipeline, as in a real fleet.
 */
import type { Fleet } from 'kube-sim';
import { startForge, type ForgeHandle } from 'forge-sim';
import { parse } from 'yaml';
import * as demo from './objects.js';

/** The fleet repository on the demo forge, and the branch Flux follows. */
export const FLEET_REPO = 'acme/fleet';
export const FLEET_BRANCH = 'main';
/** The Secret (in the app namespace) whose `token` the gateway pushes and opens requests with. */
export const TOKEN_SECRET = 'fleet-promotions';
/** The person who merges promotion requests in the demo (`demo merge`). */
export const DEMO_MAINTAINER = 'demo-maintainer';

/** Where `env`'s HelmRelease lives in the fleet repository. */
export function manifestPath(env: string): string {
  return `clusters/${env}/${demo.APP_NAME}.yaml`;
}

/** The marker that makes a value prod's promoted revision (see docs/pull-requests.md). */
const PROD_MARKER = `# {"$promotion": "${demo.APP_NAMESPACE}:${demo.APP_NAME}:prod"}`;

/** Why each environment's version is what it is; only prod's is changed by pull requests. */
const VERSION_NOTES: Record<string, string> = {
  dev: '# dev: Flux follows every chart release (`demo deploy` plays it)',
  staging: '# staging: promoted by the notification strategy (the demo rolls the cluster out)',
  prod: '# prod: changed by promotion pull requests only; merge one and Flux rolls it out',
};

/** `env`'s HelmRelease as the fleet repository holds it, at `version`. */
export function helmReleaseYaml(env: string, version: string): string {
  const marker = env === 'prod' ? ` ${PROD_MARKER}` : '';
  return [
    VERSION_NOTES[env] ?? `# ${env}`,
    'apiVersion: helm.toolkit.fluxcd.io/v2',
    'kind: HelmRelease',
    'metadata:',
    `  name: ${demo.APP_NAME}`,
    `  namespace: ${demo.APP_NAMESPACE}`,
    'spec:',
    '  interval: 10m',
    '  chart:',
    '    spec:',
    `      chart: ${demo.APP_NAME}`,
    `      version: ${version}${marker}`,
    '      sourceRef:',
    '        kind: HelmRepository',
    `        name: ${demo.APP_NAME}`,
    `        namespace: ${demo.FLUX_NAMESPACE}`,
    '  values:',
    `    replicaCount: ${env === 'prod' ? '3' : '1'}`,
    '',
  ].join('\n');
}

/** The chart version a HelmRelease manifest names, or undefined when it names none. */
export function chartVersion(text: string): string | undefined {
  const release = parse(text) as { spec?: { chart?: { spec?: { version?: unknown } } } } | null;
  const version = release?.spec?.chart?.spec?.version;
  if (typeof version === 'number') return String(version);
  return typeof version === 'string' ? version : undefined;
}

/** The running forge and what the demo's commands and Flux stand-in need of it. */
export interface DemoForge {
  forge: ForgeHandle;
  /** The repository's address, as the Pipeline names it. */
  repoUrl: string;
  /** `host:port`, for the gateway's `promotion.pullRequest.allowedHosts`. */
  host: string;
  /** The demo maintainer's token, for `demo merge` (in the state file only). */
  maintainerToken: string;
}

/**
 * Starts the forge with the fleet repository, puts the gateway's token into the Secret and
 * points prod's promotion at the repository (so, before the gateway starts). Closes the forge
 * when a step fails.
 */
export async function startDemoForge(fleet: Fleet): Promise<DemoForge> {
  const forge = await startForge({ kind: 'github' });
  try {
    await forge.createRepo(
      FLEET_REPO,
      Object.fromEntries(
        demo.DEMO_ENVIRONMENTS.map((env) => [
          manifestPath(env),
          helmReleaseYaml(env, demo.INITIAL_VERSION),
        ]),
      ),
      FLEET_BRANCH,
    );
    const repoUrl = `${forge.url}/${FLEET_REPO}`;
    const management = fleet.cluster('management');
    management.apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: TOKEN_SECRET, namespace: demo.APP_NAMESPACE },
      type: 'Opaque',
      data: { token: Buffer.from(forge.addToken('promotion-gateway')).toString('base64') },
    });
    management.apply(demo.demoPipeline(demo.APP_NAME, undefined, prodStrategy(repoUrl)));
    const host = new URL(forge.url).host;
    return { forge, repoUrl, host, maintainerToken: forge.addToken(DEMO_MAINTAINER) };
  } catch (err) {
    await forge.close();
    throw err;
  }
}

/** weave's pull-request strategy for the fleet repository, for demo.PULL_REQUEST_ENVIRONMENT. */
function prodStrategy(repoUrl: string): Record<string, unknown> {
  return {
    'pull-request': {
      type: 'github',
      url: repoUrl,
      baseBranch: FLEET_BRANCH,
      secretRef: { name: TOKEN_SECRET },
    },
  };
}
