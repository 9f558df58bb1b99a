import { CoreV1Api, KubeConfig, makeInformer, type CoreV1Event } from '@kubernetes/client-node';
import type { Fleet } from 'kube-sim';
import { EventAnnotations, PromoteEventReason, type GatewayLogger } from 'promotion-gateway';
import { notify, rollOut } from './flux.js';
import { APP_NAMESPACE } from './objects.js';

/** What the demo's stand-in for "Flux applies the promoted version" needs. */
export interface AutoRollOutOptions {
  fleet: Fleet;
  gatewayUrl: string;
  hmacKeys: Record<string, string>;
  logger: GatewayLogger;
  /** Pause between a promotion and its roll-out, so the log reads in order. */
  delayMs?: number;
}

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
  const informer = makeInformer(management, `/api/v1/namespaces/${APP_NAMESPACE}/events`, () =>
    core.listNamespacedEvent({ namespace: APP_NAMESPACE }),
  );
  const seen = new Set<string>();
  let started = false;
  const timers = new Set<NodeJS.Timeout>();
  informer.on('add', (event: CoreV1Event) => {
    if (!started || event.reason !== PromoteEventReason) return;
    const uid = event.metadata.uid ?? event.metadata.name ?? '';
    if (seen.has(uid)) return;
    seen.add(uid);
    const env = event.metadata.annotations?.[EventAnnotations.environment];
    const version = event.metadata.annotations?.[EventAnnotations.version];
    if (env === undefined || version === undefined) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      void rollOutAndNotify(options, env, version);
    }, options.delayMs ?? 1500);
    timers.add(timer);
  });
  informer.on('error', () => {
    setTimeout(() => void informer.start(), 1000).unref();
  });
  await informer.start();
  // Events listed at start are history, not promotions to act on now.
  for (const event of informer.list()) seen.add(event.metadata.uid ?? event.metadata.name ?? '');
  started = true;
  return async () => {
    for (const timer of timers) clearTimeout(timer);
    await informer.stop();
  };
}

async function rollOutAndNotify(
  options: AutoRollOutOptions,
  env: string,
  version: string,
): Promise<void> {
  const key = options.hmacKeys[env];
  if (key === undefined) return;
  try {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(options.fleet.kubeconfig());
    kubeConfig.setCurrentContext(env);
    const object = await rollOut(kubeConfig, version);
    options.logger.info(
      { environment: env, version },
      'demo flux: rolled out the promoted version',
    );
    await notify(options.gatewayUrl, env, key, object, version);
  } catch (err) {
    options.logger.warn({ err, environment: env }, 'demo flux: roll-out failed');
  }
}
