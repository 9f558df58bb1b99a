/**
 * Builds the gateway's frozen configuration from a YAML/JSON file or an object: validate with
 * schemas/config.schema.json (defaults filled in), check cross-field rules, resolve secrets.
 * Every problem is collected and reported together in one ConfigError.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname as osHostname } from 'node:os';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { buildAuthorizations } from './authorizations.js';
import { buildWindows } from './windows.js';
import { buildSharding, leaseName } from './sharding.js';
import { checkHmacKeysDistinct, checkInput, checkPublicKey } from './checks.js';
import type { CheckedInput, ConfigInput } from './input.js';
import { pointerSegment, problem, validateShape } from './schema.js';
import { resolveSecret, webhookSigningKey, type SecretContext } from './secret-sources.js';
import type {
  ClusterConfig,
  GatewayConfig,
  JwtConfig,
  UiConfig,
  WebhookEndpoint,
} from './gateway-config.js';

export type { ConfigInput, SecretSource } from './input.js';

/** A configuration that cannot be used. `problems` holds one line per mistake, each naming its field. */
export class ConfigError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
    this.problems = Object.freeze([...problems]);
  }
}

/** Where the configuration comes from: a file path or an in-code object (exactly one). */
export interface ConfigSource {
  file?: string;
  object?: unknown;
  /** The environment for `env` secret sources; the loader never reads process.env itself. */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * For the defaults promotion.instanceId (`<hostname>-<pid>`) and leaderElection.identity
   * (`<hostname>-<6 random hex digits>`); defaults to this process's.
   */
  hostname?: string;
  pid?: number;
}

/**
 * Loads, validates and resolves a configuration. Returns a deep-frozen GatewayConfig (secret
 * Buffers excepted: typed arrays cannot be frozen) or throws ConfigError listing every problem.
 */
export function loadConfig(source: ConfigSource): GatewayConfig {
  const data = readSource(source);
  const shapeProblems = validateShape(data);
  if (shapeProblems.length > 0) throw new ConfigError(shapeProblems);
  const input = data as CheckedInput;
  const problems = checkInput(input);
  const baseDir = source.file === undefined ? process.cwd() : dirname(resolve(source.file));
  const config = build(input, { env: source.env, baseDir }, source, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return deepFreeze(config);
}

/**
 * A valid configuration built in code, for the demo and tests: `overrides` is written like a
 * config file and gets the same defaults and checks. Secrets come from `value`s or `env`.
 */
export function defaultConfig(
  overrides: ConfigInput = {},
  options: {
    env?: Readonly<Record<string, string | undefined>>;
    hostname?: string;
    pid?: number;
  } = {},
): GatewayConfig {
  const { env = {}, hostname, pid } = options;
  return loadConfig({ object: overrides, env, hostname, pid });
}

function readSource(source: ConfigSource): unknown {
  if (source.file !== undefined && source.object !== undefined) {
    throw new ConfigError([problem('', 'give either a file or an object, not both')]);
  }
  if (source.file !== undefined) return parseFile(source.file);
  if (source.object === undefined) throw new ConfigError([problem('', 'no file or object given')]);
  try {
    // ajv writes defaults into what it validates: never into the caller's object.
    return structuredClone(source.object);
  } catch {
    throw new ConfigError([problem('', 'must be plain data (what YAML or JSON can hold)')]);
  }
}

function parseFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const reason = typeof code === 'string' ? code : 'read error';
    throw new ConfigError([`config file "${file}": cannot read (${reason})`]);
  }
  // YAML 1.2 is a superset of JSON, so one parser serves both. Parser messages quote the
  // offending source line, which may hold an inline secret: report position and code only.
  const document = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (document.errors.length > 0) {
    throw new ConfigError(
      document.errors.map((error) => {
        const at = error.linePos?.[0];
        const where = at === undefined ? '' : ` at line ${at.line}, column ${at.col}`;
        return `config file "${file}": not valid YAML or JSON${where} (${error.code})`;
      }),
    );
  }
  return document.toJS({ maxAliasCount: 100 });
}

function build(
  input: CheckedInput,
  context: SecretContext,
  source: ConfigSource,
  problems: string[],
): GatewayConfig {
  const clusters = input.clusters.map((cluster, index) =>
    buildCluster(cluster, index, context, problems),
  );
  problems.push(...checkHmacKeysDistinct(clusters));
  const { kubeconfig, ...management } = input.management;
  const lease = leaseName(input);
  return {
    server: { ...input.server },
    rateLimit: { ...input.rateLimit },
    management: {
      ...management,
      ...(kubeconfig === undefined ? {} : { kubeconfig: absolute(kubeconfig, context.baseDir) }),
    },
    pipelineNamespaces: [...input.pipelineNamespaces],
    clusters: clusters.map((c) => ({ ...c, hmacKeys: c.hmacKeys.filter(isDefined) })),
    ...(input.jwt === undefined ? {} : { jwt: buildJwt(input.jwt, context, problems) }),
    hints: { ...input.hints },
    resync: { ...input.resync },
    leaderElection: {
      ...input.leaderElection,
      name: lease,
      namespace: input.leaderElection.namespace ?? DEFAULT_LEASE_NAMESPACE,
      identity: input.leaderElection.identity ?? defaultIdentity(source),
    },
    ...(input.sharding === undefined
      ? {}
      : { sharding: buildSharding(input.sharding, lease, problems) }),
    promotion: {
      retry: { ...input.promotion.retry },
      webhooks: buildWebhooks(input.promotion.webhooks, context, problems),
      pullRequest: {
        ...input.promotion.pullRequest,
        author: { ...input.promotion.pullRequest.author },
        allowedHosts: [...input.promotion.pullRequest.allowedHosts],
      },
      instanceId: input.promotion.instanceId ?? defaultInstanceId(source),
      windows: buildWindows(input.promotion.windows, problems),
    },
    authorizations: buildAuthorizations(input, context, problems),
    checks: {
      maxConcurrent: input.checks.maxConcurrent,
      http: { allowedUrlPrefixes: [...input.checks.http.allowedUrlPrefixes] },
    },
    notifications: {
      ...input.notifications,
      crossNamespace: Array.isArray(input.notifications.crossNamespace)
        ? [...input.notifications.crossNamespace]
        : input.notifications.crossNamespace,
      allowedUrlPrefixes: [...input.notifications.allowedUrlPrefixes],
    },
    trains: {
      crossNamespace: Array.isArray(input.trains.crossNamespace)
        ? [...input.trains.crossNamespace]
        : input.trains.crossNamespace,
    },
    ...(input.ui === undefined ? {} : { ui: uiConfig(input.ui) }),
    logLevel: input.logLevel,
  };
}

/** The view's settings, its external address without a trailing slash (links append paths). */
function uiConfig(input: NonNullable<CheckedInput['ui']>): UiConfig {
  const { externalUrl, ...rest } = input;
  return {
    ...rest,
    ...(externalUrl === undefined ? {} : { externalUrl: externalUrl.replace(/\/+$/, '') }),
  };
}

type PendingCluster = Omit<ClusterConfig, 'hmacKeys'> & { hmacKeys: (Buffer | undefined)[] };

function buildCluster(
  cluster: CheckedInput['clusters'][number],
  index: number,
  context: SecretContext,
  problems: string[],
): PendingCluster {
  return {
    name: cluster.name,
    ...(cluster.gitopsCluster === undefined ? {} : { gitopsCluster: { ...cluster.gitopsCluster } }),
    // Unresolved keys stay as undefined slots so that later problems keep their indices.
    hmacKeys: cluster.hmacKeys.map((key, keyIndex) =>
      resolveSecret(key, `/clusters/${index}/hmacKeys/${keyIndex}`, context, problems),
    ),
    jwtSubjects: [...cluster.jwtSubjects],
  };
}

function buildJwt(
  jwt: NonNullable<CheckedInput['jwt']>,
  context: SecretContext,
  problems: string[],
): JwtConfig {
  const publicKeys: string[] = [];
  (jwt.publicKeys ?? []).forEach((key, index) => {
    const pointer = `/jwt/publicKeys/${index}`;
    const bytes = resolveSecret(key, pointer, context, problems);
    if (bytes === undefined) return;
    const text = bytes.toString('utf8');
    const keyProblems = checkPublicKey(text, pointer);
    problems.push(...keyProblems);
    if (keyProblems.length === 0) publicKeys.push(text);
  });
  return {
    issuer: jwt.issuer,
    audience: jwt.audience,
    algorithms: [...jwt.algorithms],
    ...(jwt.jwksUrl === undefined ? {} : { jwksUrl: jwt.jwksUrl }),
    publicKeys,
    clockToleranceSeconds: jwt.clockToleranceSeconds,
    maxTokenAgeSeconds: jwt.maxTokenAgeSeconds,
  };
}

function buildWebhooks(
  webhooks: CheckedInput['promotion']['webhooks'],
  context: SecretContext,
  problems: string[],
): Record<string, WebhookEndpoint> {
  const endpoints: Record<string, WebhookEndpoint> = {};
  for (const [name, endpoint] of Object.entries(webhooks)) {
    const pointer = `/promotion/webhooks/${pointerSegment(name)}/secret`;
    const bytes =
      endpoint.secret === undefined
        ? undefined
        : resolveSecret(endpoint.secret, pointer, context, problems);
    const secret = bytes === undefined ? undefined : webhookSigningKey(bytes, pointer, problems);
    endpoints[name] = {
      url: endpoint.url,
      timeoutMs: endpoint.timeoutMs,
      ...(secret === undefined ? {} : { secret }),
    };
  }
  return endpoints;
}

/**
 * flux-system exists on every Flux management cluster and is admin-only; Pipeline namespaces
 * may be tenants', and whoever can hold the Lease can stop every replica's periodic resync.
 */
const DEFAULT_LEASE_NAMESPACE = 'flux-system';

// The hostname is the pod name in Kubernetes; the suffix keeps a restarted pod (same name)
// from being taken for the holder it replaces, as client-go's hostname_uuid identities do.
function defaultIdentity(source: ConfigSource): string {
  return `${source.hostname ?? osHostname()}-${randomBytes(3).toString('hex')}`;
}

function defaultInstanceId(source: ConfigSource): string {
  return `${source.hostname ?? osHostname()}-${String(source.pid ?? process.pid)}`;
}

function absolute(path: string, baseDir: string): string {
  return isAbsolute(path) ? path : resolve(baseDir, path);
}

function isDefined<T>(value: T | undefined): value is T {
  return value !== undefined;
}

/** Freezes objects and arrays all the way down; Buffers cannot be frozen and are left as is. */
function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Buffer.isBuffer(value)) return value;
  for (const child of Object.values(value)) deepFreeze(child);
  return Object.freeze(value);
}
