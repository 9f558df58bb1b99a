/**
 * The demo's stand-in for what acts on the notification strategy's `Promote` Events: Flux
 * applying the promoted version (and, for a version marked to break, its Helm tests failing
 * after the roll-out).
 */
import { CoreV1Api, KubeConfig, makeInformer, type CoreV1Event } from '@kubernetes/client-node';
import type { Fleet } from 'kube-sim';
import { EventAnnotations, PromoteEventReason, type GatewayLogger } from 'promotion-gateway';
import { breaksAfterPromotion } from './chart-faults.js';
import { failTests, notify, notifyTestFailed, rollOut, type AppRef } from './flux.js';
import { APP_NAME, APP_NAMESPACE, TRAIN_NAMESPACE } from './objects.js';

/** What the demo's stand-in for "Flux applies the promoted version" needs. */
export interface AutoRollOutOptions {
  fleet: Fleet;
  gatewayUrl: string;
  hmacKeys: Record<string, string>;
  logger: GatewayLogger;
  /**
   * Pause between a promotion and its roll-out, so the log reads in order; and between the
   * roll-out of a version marked to break (chart-faults.ts) and its failed tests.
   */
  delayMs?: number;
}

/** Runs `fn` in `ms`, unless the stand-in has stopped by then. */
type Later = (fn: () => void, ms: number) => void;

/**
 * Environments promoted by notification (dev, staging) get a `Promote` Event and no Git change
 * (prod's pull requests are git-flux.ts's), so this plays what would act on that Event: it rolls
 * the named environment out to the named version, then sends Flux's event for it.
 * Resolves to a function that stops it.
 */
export async function autoRollOut(options: AutoRollOutOptions): Promise<() => Promise<void>> {
  const management = new KubeConfig();
  management.loadFromString(options.fleet.kubeconfig());
  management.setCurrentContext('management');
  const core = management.makeApiClient(CoreV1Api);
  // podinfo's namespace, and the release train's (its apps are promoted the same way).
  const informers = [APP_NAMESPACE, TRAIN_NAMESPACE].map((namespace) =>
    makeInformer(management, `/api/v1/namespaces/${namespace}/events`, () =>
      core.listNamespacedEvent({ namespace }),
    ),
  );
  const seen = new Set<string>();
  let started = false;
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  const later: Later = (fn, ms) => {
    // A roll-out still under way at the stop would otherwise leave a timer behind it.
    if (stopped) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };
  for (const informer of informers) {
    informer.on('add', (event: CoreV1Event) => {
      if (!started || event.reason !== PromoteEventReason) return;
      const uid = event.metadata.uid ?? event.metadata.name ?? '';
      if (seen.has(uid)) return;
      seen.add(uid);
      const env = event.metadata.annotations?.[EventAnnotations.environment];
      const version = event.metadata.annotations?.[EventAnnotations.version];
      // The Pipeline the Event is about names its HelmRelease (the demo names both alike).
      const { namespace, name } = event.involvedObject;
      if (
        env === undefined ||
        version === undefined ||
        namespace === undefined ||
        name === undefined
      )
        return;
      const app = { namespace, name };
      later(
        () => void rollOutAndNotify(options, env, version, app, later),
        options.delayMs ?? 1500,
      );
    });
    informer.on('error', () => {
      setTimeout(() => void informer.start(), 1000).unref();
    });
    await informer.start();
    // Events listed at start are history, not promotions to act on now.
    for (const event of informer.list()) seen.add(event.metadata.uid ?? event.metadata.name ?? '');
  }
  started = true;
  return async () => {
    stopped = true;
    for (const timer of timers) clearTimeout(timer);
    for (const informer of informers) await informer.stop();
  };
}

/** The admin kubeconfig of the demo fleet, at `env`'s cluster. */
function contextOf(fleet: Fleet, env: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(fleet.kubeconfig());
  kubeConfig.setCurrentContext(env);
  return kubeConfig;
}

async function rollOutAndNotify(
  options: AutoRollOutOptions,
  env: string,
  version: string,
  app: AppRef,
  later: Later,
): Promise<void> {
  const key = options.hmacKeys[env];
  if (key === undefined) return;
  try {
    const object = await rollOut(contextOf(options.fleet, env), version, false, app);
    options.logger.info(
      { environment: env, version, ...(app.name === APP_NAME ? {} : { app: app.name }) },
      'demo flux: rolled out the promoted version',
    );
    await notify(options.gatewayUrl, env, key, object, version);
    if (app.namespace === APP_NAMESPACE && breaksAfterPromotion(options.fleet, version))
      later(() => void breakAndNotify(options, env, version, key), options.delayMs ?? 1500);
  } catch (err) {
    options.logger.warn({ err, environment: env }, 'demo flux: roll-out failed');
  }
}

/** The Helm tests of `version`, just rolled out to `env`, fail; Flux's warning is sent. */
async function breakAndNotify(
  options: AutoRollOutOptions,
  env: string,
  version: string,
  key: string,
): Promise<void> {
  try {
    const object = await failTests(contextOf(options.fleet, env), version);
    // Something rolled the environment on meanwhile: the tests of that version are not ours.
    if (object === undefined) return;
    options.logger.warn(
      { environment: env, version },
      'demo flux: the Helm tests of the promoted version failed (Ready=False, TestFailed)',
    );
    await notifyTestFailed(options.gatewayUrl, env, key, object);
  } catch (err) {
    options.logger.warn({ err, environment: env }, 'demo flux: failing the tests failed');
  }
}
