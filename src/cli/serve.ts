/**
 * `promotion-gateway serve`: load and validate the configuration, connect to the management
 * cluster, start the gateway and serve until SIGINT/SIGTERM.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { dirname } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { command, UsageError, valueOptions, type CommandIo, type CommandValues } from './args.js';
import { ConfigError, loadConfig } from '../config/load.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { createGateway, type Gateway } from '../wiring/gateway.js';
import { createLogger } from '../log.js';
import { InstalledCrdError } from '../wiring/crd-check.js';

/** Environment as the CLI receives it (only src/server.ts passes process.env here). */
export type Env = Readonly<Record<string, string | undefined>>;

const SERVE_USAGE = `Usage: promotion-gateway serve --config FILE [--kubeconfig PATH] [--context NAME]

Reads and validates the configuration (docs/configuration.md), connects to the management
cluster (--kubeconfig, the config's management.kubeconfig, or the in-cluster service account)
and serves until SIGINT/SIGTERM. A bad configuration, missing credentials or a kubeconfig
that cannot be used (unreadable, not YAML, no such context, a context without cluster or user,
no current-context) exit with status 2 and one line naming the file and the context.
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
  try {
    await gateway.start();
  } catch (err) {
    if (!(err instanceof InstalledCrdError)) throw err;
    logger.error({ lost: err.lost }, err.message);
    await gateway.close();
    return 1;
  }
  const address = await gateway.listen();
  const metrics = gateway.metricsAddress();
  const ui = gateway.uiAddress();
  const extra = {
    ...(metrics === undefined ? {} : { metrics }),
    ...(ui === undefined ? {} : { ui }),
  };
  logger.info({ address, ...extra }, 'gateway listening');
  await untilSignal();
  logger.info('shutting down');
  await gateway.close();
  return 0;
}

/** Where a pod's service account token is mounted (client-node's loadFromCluster reads it). */
export const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/**
 * The management cluster's credentials: --kubeconfig (or the config's management.kubeconfig)
 * when given, else the in-cluster service account; or, when they cannot be used, one line
 * saying why, naming the file and the context (client-node would otherwise fail later with
 * its own words, `ENOENT` or `No active cluster!`, or build `https://undefined`).
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
    const problem = loadKubeconfigFile(kubeConfig, file, context ?? config.management.context);
    if (problem !== undefined) return problem;
  }
  return kubeConfig;
}

/**
 * Loads `file` into `kubeConfig` with `wanted` (else its current-context) as the context, or
 * answers what is wrong in one line naming both. Messages name files, fields, positions and
 * names, never a value that may be a credential.
 */
function loadKubeconfigFile(
  kubeConfig: KubeConfig,
  file: string,
  wanted: string | undefined,
): string | undefined {
  const where = `management kubeconfig "${file}", ${wanted === undefined ? 'its current-context' : `context "${wanted}"`}`;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return `${where}: cannot read the file (${errorCode(error)})`;
  }
  try {
    kubeConfig.loadFromString(text);
  } catch (error) {
    return `${where}: ${parseProblem(error)}`;
  }
  // As client-node's loadFromFile does: certificate and key files are relative to the file.
  kubeConfig.makePathsAbsolute(dirname(file));
  // Typed as a string, but whatever the file's `current-context` holds, absent included.
  const current: unknown = kubeConfig.getCurrentContext();
  const name = wanted ?? (typeof current === 'string' ? current : '');
  if (name === '')
    return `${where}: the file sets no current-context; give --context NAME or management.context`;
  kubeConfig.setCurrentContext(name);
  const problem = contextProblem(kubeConfig, name);
  return problem === undefined
    ? undefined
    : `management kubeconfig "${file}", context "${name}": ${problem}`;
}

/** What is wrong with context `name` of a loaded kubeconfig, if anything. */
function contextProblem(kubeConfig: KubeConfig, name: string): string | undefined {
  const context = kubeConfig.getContextObject(name);
  if (context === null) {
    const names = kubeConfig.getContexts().map((c) => c.name);
    const known = names.length === 0 ? 'it defines none' : `it defines ${quoted(names)}`;
    return `no such context (${known})`;
  }
  if (kubeConfig.getCluster(context.cluster) === null)
    return `names cluster "${context.cluster}", which the file does not define`;
  // Typed as a string, but client-node leaves a context without `user` at undefined.
  const user: unknown = context.user;
  if (typeof user !== 'string' || user === '') return 'names no user';
  if (kubeConfig.getUser(user) === null)
    return `names user "${user}", which the file does not define`;
  return undefined;
}

/** At most ten names, quoted, for a one-line message. */
function quoted(names: readonly string[]): string {
  const shown = names.slice(0, 10).map((n) => `"${n}"`);
  return names.length > 10 ? `${shown.join(', ')}, ...` : shown.join(', ');
}

/**
 * Why client-node could not read the text: a YAML error by position only (its message quotes
 * the source, which may hold a token), a missing field by its path, else "not a kubeconfig".
 */
function parseProblem(error: unknown): string {
  const mark = (error as { mark?: { line?: unknown; column?: unknown } }).mark;
  if ((error as { name?: unknown }).name === 'YAMLException') {
    const at =
      typeof mark?.line === 'number' && typeof mark.column === 'number'
        ? ` at line ${String(mark.line + 1)}, column ${String(mark.column + 1)}`
        : '';
    return `not valid YAML${at}`;
  }
  const message = error instanceof Error ? error.message : '';
  // client-node's own checks name the entry at fault, e.g. `clusters[0].cluster.server is missing`.
  if (
    /^(clusters|users|contexts)\[\d+\][.\w]* is missing$/.test(message) ||
    /^Duplicate (cluster|user|context): /.test(message)
  )
    return `not a usable kubeconfig (${message})`;
  return 'not a kubeconfig (expected a YAML mapping with clusters, users and contexts)';
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : 'read error';
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
