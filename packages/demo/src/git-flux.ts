/**
 * The demo's stand-in for Flux syncing prod from Git: it watches the fleet repository's branch,
 * and when a new commit names another chart version for prod than prod runs (a merged promotion
 * request), rolls prod out to it and sends Flux's event, as source- and helm-controller would.
 */
import { KubeConfig } from '@kubernetes/client-node';
import type { ForgeHandle } from 'forge-sim';
import type { Fleet } from 'kube-sim';
import type { GatewayLogger } from 'promotion-gateway';
import { FLEET_BRANCH, FLEET_REPO, chartVersion, manifestPath } from './fleet-repo.js';
import { notify, rollOut } from './flux.js';
import { APP_NAME, APP_NAMESPACE } from './objects.js';

/** The environment this stand-in syncs from Git (the others are promoted by notification). */
const GIT_ENV = 'prod';

/** What the Git-reading stand-in needs. */
export interface GitFluxOptions {
  forge: ForgeHandle;
  fleet: Fleet;
  gatewayUrl: string;
  hmacKey: string;
  logger: GatewayLogger;
  /** How often the branch head is read (source-controller's interval, much shortened). */
  pollMs?: number;
  /**
   * Pause between noticing a commit and applying it. At least the gateway's pull-request
   * refresh interval, so the check Flux's event causes also reads the request as merged.
   */
  delayMs?: number;
}

/** Starts polling; returns a function that stops it (and waits for a sync under way). */
export function watchGit(options: GitFluxOptions): () => Promise<void> {
  let synced: string | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const schedule = (ms: number): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick().then(() => {
        schedule(options.pollMs ?? 500);
      });
    }, ms);
    timer.unref();
  };
  const tick = async (): Promise<void> => {
    const head = await options.forge.branchHead(FLEET_REPO, FLEET_BRANCH).catch(() => undefined);
    if (head === undefined || head === synced) return;
    // The first head read is what prod was set up from; later ones are merges to apply.
    if (synced !== undefined) await pause(options.delayMs ?? 0);
    if (!stopped && (await sync(options, head))) synced = head;
  };
  schedule(0);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}

/** Applies `head`'s prod version when prod runs another; false when it should be tried again. */
async function sync(options: GitFluxOptions, head: string): Promise<boolean> {
  try {
    const text = await options.forge.readFile(FLEET_REPO, head, manifestPath(GIT_ENV));
    const version = text === undefined ? undefined : chartVersion(text);
    if (version === undefined || version === runningVersion(options.fleet)) return true;
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(options.fleet.kubeconfig());
    kubeConfig.setCurrentContext(GIT_ENV);
    const object = await rollOut(kubeConfig, version);
    options.logger.info(
      { environment: GIT_ENV, version, commit: head.slice(0, 7) },
      'demo flux: applied the merged version from Git',
    );
    await notify(options.gatewayUrl, GIT_ENV, options.hmacKey, object, version);
    return true;
  } catch (err) {
    options.logger.warn({ err, environment: GIT_ENV }, 'demo flux: sync from Git failed');
    return false;
  }
}

/** The chart version prod's HelmRelease asks for now. */
function runningVersion(fleet: Fleet): string | undefined {
  const release = fleet
    .cluster(GIT_ENV)
    .get('helm.toolkit.fluxcd.io/v2', 'HelmRelease', APP_NAMESPACE, APP_NAME) as
    { spec?: { chart?: { spec?: { version?: string } } } } | undefined;
  return release?.spec?.chart?.spec?.version;
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => {
    setTimeout(resolve, ms).unref();
  });
}
