/**
 * `promotion-gateway serve`: load and validate the configuration, connect to the management
 * cluster, start the gateway and serve until SIGINT/SIGTERM.
 */
import { existsSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import {
  command,
  UsageError,
  valueOptions,
  type CommandIo,
  type CommandValues,
} from './cli/args.js';
import { ConfigError, loadConfig } from './config/load.js';
import type { GatewayConfig } from './config/gateway-config.js';
import { createGateway, type Gateway } from './gateway.js';
import { createLogger } from './log.js';

/** Environment as the CLI receives it (only src/server.ts passes process.env here). */
export type Env = Readonly<Record<string, string | undefined>>;

const SERVE_USAGE = `Usage: promotion-gateway serve --config FILE [--kubeconfig PATH] [--context NAME]

Reads and validates the configuration (docs/configuration.md), connects to the management
cluster (--kubeconfig, the config's management.kubeconfig, or the in-cluster service account)
and serves until SIGINT/SIGTERM. A bad configuration or missing credentials exit with status 2.
`;

const SERVE_OPTIONS = valueOptions('config', 'kubeconfig', 'context');

async function serve(
  values: CommandValues<typeof SERVE_OPTIONS>,
  { env, out }: CommandIo,
): Promise<number> {
  if (values.config === undefined) throw new UsageError('serve: --config FILE is required');
  let config: GatewayConfig;
  try {
    config = loadConfig({ file: values.config, env });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    out.write(`invalid configuration ${values.config}:\n${err.message}\n`);
    return 2;
  }
  const kubeConfig = managementKubeConfig(config, values.kubeconfig, values.context, env);
  if (typeof kubeConfig === 'string') {
    out.write(`serve: ${kubeConfig}\n`);
    return 2;
  }
  return serveUntilSignal(config, kubeConfig);
}

const serveCommand = command({ usage: SERVE_USAGE, options: SERVE_OPTIONS, run: serve });

/** Runs `serve`; resolves to the process exit code once the gateway has shut down. */
export function runServe(args: string[], env: Env, out: NodeJS.WritableStream): Promise<number> {
  return serveCommand(args, { env, out });
}

async function serveUntilSignal(config: GatewayConfig, kubeConfig: KubeConfig): Promise<number> {
  const logger = createLogger(config.logLevel);
  const gateway = await createGateway({ config, managementKubeConfig: kubeConfig, logger });
  await gateway.start();
  const address = await gateway.listen();
  const metrics = gateway.metricsAddress();
  logger.info({ address, ...(metrics === undefined ? {} : { metrics }) }, 'gateway listening');
  await untilSignal();
  logger.info('shutting down');
  await gateway.close();
  return 0;
}

/** Where a pod's service account token is mounted (client-node's loadFromCluster reads it). */
export const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/**
 * The management cluster's credentials: --kubeconfig (or the config's management.kubeconfig)
 * when given, else the in-cluster service account; or, when neither exists, a sentence saying
 * what is missing (client-node would otherwise build `https://undefined` and fail every call).
 */
export function managementKubeConfig(
  config: GatewayConfig,
  path: string | undefined,
  context: string | undefined,
  env: Env,
  tokenFile = SERVICE_ACCOUNT_TOKEN,
): KubeConfig | string {
  const kubeConfig = new KubeConfig();
  const file = path ?? config.management.kubeconfig;
  if (file === undefined) {
    const missing = inClusterMissing(env, tokenFile);
    if (missing !== undefined)
      return `no management cluster credentials: ${missing}; give --kubeconfig PATH or management.kubeconfig in the configuration, or run in a pod with a service account`;
    loadInCluster(kubeConfig, env);
  } else {
    kubeConfig.loadFromFile(file);
    const wanted = context ?? config.management.context;
    if (wanted !== undefined) kubeConfig.setCurrentContext(wanted);
  }
  return kubeConfig;
}

/**
 * client-node's in-cluster loader (CA, token file refreshed on rotation, namespace), with the
 * API server address taken from `env` as given rather than from process.env.
 */
function loadInCluster(kubeConfig: KubeConfig, env: Env): void {
  kubeConfig.loadFromCluster();
  const host = env.KUBERNETES_SERVICE_HOST ?? '';
  const port = env.KUBERNETES_SERVICE_PORT ?? '';
  const server = `https://${isIPv6(host) ? `[${host}]` : host}:${port}`;
  kubeConfig.loadFromOptions({
    clusters: kubeConfig.clusters.map((cluster) => ({ ...cluster, server })),
    users: kubeConfig.users,
    contexts: kubeConfig.contexts,
    currentContext: kubeConfig.currentContext,
  });
}

function inClusterMissing(env: Env, tokenFile: string): string | undefined {
  if (env.KUBERNETES_SERVICE_HOST === undefined || env.KUBERNETES_SERVICE_PORT === undefined)
    return 'not running in a cluster (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set)';
  if (!existsSync(tokenFile)) return `no service account token at ${tokenFile}`;
  return undefined;
}

/** Resolves on the first SIGINT or SIGTERM. */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

export type { Gateway };
