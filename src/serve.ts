/**
 * `promotion-gateway serve`: load and validate the configuration, connect to the management
 * cluster, start the gateway and serve until SIGINT/SIGTERM.
 */
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { ConfigError, loadConfig } from './config/load.js';
import type { GatewayConfig } from './config/types.js';
import { createGateway, type Gateway } from './gateway.js';
import { createLogger } from './log.js';

/** Environment as the CLI receives it (only src/server.ts passes process.env here). */
export type Env = Readonly<Record<string, string | undefined>>;

/** Runs `serve`; resolves to the process exit code once the gateway has shut down. */
export async function runServe(
  args: string[],
  env: Env,
  out: NodeJS.WritableStream,
): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      config: { type: 'string' },
      kubeconfig: { type: 'string' },
      context: { type: 'string' },
    },
    strict: true,
  });
  if (values.config === undefined) {
    out.write('serve: --config FILE is required\n');
    return 2;
  }
  let config: GatewayConfig;
  try {
    config = loadConfig({ file: values.config, env });
  } catch (err) {
    if (err instanceof ConfigError) {
      out.write(`invalid configuration ${values.config}:\n${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const kubeConfig = managementKubeConfig(config, values.kubeconfig, values.context);
  const logger = createLogger(config.logLevel);
  const gateway = await createGateway({ config, managementKubeConfig: kubeConfig, logger });
  await gateway.start();
  const address = await gateway.listen();
  logger.info({ address }, 'gateway listening');
  await untilSignal();
  logger.info('shutting down');
  await gateway.close();
  return 0;
}

/**
 * The management cluster's credentials: --kubeconfig (or the config's management.kubeconfig)
 * when given, else the in-cluster service account.
 */
export function managementKubeConfig(
  config: GatewayConfig,
  path?: string,
  context?: string,
): KubeConfig {
  const kubeConfig = new KubeConfig();
  const file = path ?? config.management.kubeconfig;
  if (file === undefined) {
    kubeConfig.loadFromCluster();
  } else {
    kubeConfig.loadFromFile(file);
    const wanted = context ?? config.management.context;
    if (wanted !== undefined) kubeConfig.setCurrentContext(wanted);
  }
  return kubeConfig;
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
