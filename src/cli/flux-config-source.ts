/**
 * What `flux-config` reads: the management cluster's credentials found as kubectl finds them
 * (--kubeconfig, else every file of KUBECONFIG, else ~/.kube/config; --context, else the
 * current one), the naming part of the gateway's configuration when given, and the Pipelines
 * and GitopsClusters, listed in pages as the gateway lists them. Every failure is a
 * SourceError: one line naming the file or context, never a stack trace or a credential.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { parseDocument } from 'yaml';
import type { ClusterNamingConfig } from '../catalog/cluster-names.js';
import { checkInput } from '../config/checks.js';
import type { CheckedInput } from '../config/input.js';
import { validateShape } from '../config/schema.js';
import { classifyKubeError } from '../kube/errors.js';
import { checkPipeline } from '../kube/pipeline-check.js';
import { listAllPages } from '../kube/pipeline-watch.js';
import { resourcePath, withKubeRest, type KubeRest } from '../kube/rest.js';
import { GITOPS_CLUSTER, PIPELINE, type ResourceCoordinates } from '../kube/resources.js';
import { parseSelectorText, selectorText } from '../labels/label-selector.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';
import { redactUrls } from '../text/redact-url.js';

/** A problem with an input of the command: it exits 2 with this one line. */
export class SourceError extends Error {
  override readonly name = 'SourceError';
}

/** The management cluster's credentials, and how to name them in a message. */
export interface ManagementAccess {
  kubeConfig: KubeConfig;
  /** `context NAME of FILE (SERVER)`, the server's credentials redacted: names the access. */
  where: string;
}

/**
 * The kubeconfig files kubectl would read: `path`, else KUBECONFIG's list, else ~/.kube/config.
 * Merged as kubectl merges them: the first file to name a cluster, user, context or
 * current-context wins; then `context` is selected when given.
 */
export function loadManagementAccess(
  path: string | undefined,
  context: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ManagementAccess {
  const files =
    path !== undefined
      ? [path]
      : (env.KUBECONFIG ?? '').split(delimiter).filter((f) => f !== '').length > 0
        ? (env.KUBECONFIG ?? '').split(delimiter).filter((f) => f !== '')
        : [join(env.HOME ?? homedir(), '.kube', 'config')];
  const kubeConfig = mergeFiles(files);
  const shown = files.join(delimiter);
  if (context !== undefined) {
    if (kubeConfig.getContextObject(context) === null)
      throw new SourceError(`context "${context}" is not in the kubeconfig ${shown}`);
    kubeConfig.setCurrentContext(context);
  }
  const current = kubeConfig.getCurrentContext();
  if (current === '' || kubeConfig.getContextObject(current) === null)
    throw new SourceError(`the kubeconfig ${shown} has no current context: give --context NAME`);
  const server = kubeConfig.getCurrentCluster()?.server;
  if (server === undefined || server === '')
    throw new SourceError(
      `context "${current}" of the kubeconfig ${shown} names no cluster server`,
    );
  // The server as kubectl shows one: a password or token in its URL is no part of a message.
  return { kubeConfig, where: `context "${current}" of ${shown} (${redactUrls(server)})` };
}

function mergeFiles(files: readonly string[]): KubeConfig {
  const merged = { clusters: [], users: [], contexts: [], currentContext: '' } as {
    clusters: KubeConfig['clusters'];
    users: KubeConfig['users'];
    contexts: KubeConfig['contexts'];
    currentContext: string;
  };
  for (const file of files) {
    const one = loadFile(file);
    const add = <T extends { name: string }>(into: T[], items: readonly T[]) => {
      for (const item of items) if (!into.some((i) => i.name === item.name)) into.push(item);
    };
    add(merged.clusters, one.clusters);
    add(merged.users, one.users);
    add(merged.contexts, one.contexts);
    // client-node leaves it undefined (its type says string) for a file that sets none.
    const current: unknown = one.currentContext;
    if (merged.currentContext === '' && typeof current === 'string')
      merged.currentContext = current;
  }
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions(merged);
  return kubeConfig;
}

function loadFile(file: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  try {
    readFileSync(file);
  } catch (error) {
    const missing = errorCode(error) === 'ENOENT';
    throw new SourceError(
      missing
        ? `no kubeconfig at ${file}: give --kubeconfig PATH or set KUBECONFIG`
        : `cannot read the kubeconfig ${file} (${errorCode(error)})`,
    );
  }
  try {
    kubeConfig.loadFromFile(file);
  } catch {
    // The parser's message may quote the file, credentials included: say where, not what.
    throw new SourceError(`the kubeconfig ${file} is not a valid kubeconfig`);
  }
  return kubeConfig;
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : 'read error';
}

/** The part of the gateway's configuration that names clusters, and where it finds Pipelines. */
export interface GatewayNaming {
  naming: ClusterNamingConfig;
  pipelineNamespaces: readonly string[];
  /** A shard's selector (config `sharding`): only the Pipelines that shard serves count. */
  pipelineSelector?: string;
}

/** The naming of a configuration given no file: the defaults (management cluster `management`). */
export const DEFAULT_NAMING: GatewayNaming = {
  naming: { management: { name: 'management' }, clusters: [] },
  pipelineNamespaces: [],
};

/**
 * The cluster names of the gateway configuration in `file`, checked against its schema and
 * rules. Its secrets are not resolved: they are files in the gateway's pod, not here.
 */
export function readGatewayNaming(file: string): GatewayNaming {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new SourceError(`cannot read the gateway configuration ${file} (${errorCode(error)})`);
  }
  const document = parseDocument(text, { uniqueKeys: true });
  // The parser's messages quote the line, which may hold an inline secret: position only.
  const parseError = document.errors[0];
  if (parseError !== undefined)
    throw new SourceError(
      `the gateway configuration ${file} is not valid YAML (${parseError.code})`,
    );
  const data: unknown = document.toJS({ maxAliasCount: 100 });
  const shape = validateShape(data);
  const problems = shape.length > 0 ? shape : checkInput(data as CheckedInput);
  if (problems.length > 0)
    throw new SourceError(`the gateway configuration ${file} is not valid: ${problems.join('; ')}`);
  const input = data as CheckedInput;
  return {
    naming: {
      management: { name: input.management.name },
      clusters: input.clusters.map((c) => ({
        name: c.name,
        ...(c.gitopsCluster === undefined ? {} : { gitopsCluster: { ...c.gitopsCluster } }),
        hmacKeys: [],
        jwtSubjects: [],
      })),
    },
    pipelineNamespaces: [...input.pipelineNamespaces],
    ...(input.sharding === undefined
      ? {}
      : { pipelineSelector: shardSelector(file, input.sharding.pipelineSelector) }),
  };
}

/** A shard's selector in canonical form; one that does not parse is a SourceError. */
function shardSelector(file: string, text: string): string {
  const parsed = parseSelectorText(text);
  if (!parsed.ok)
    throw new SourceError(
      `the gateway configuration ${file} is not valid: sharding.pipelineSelector ${parsed.problem}`,
    );
  return selectorText(parsed.selector);
}

/** What was read from the management cluster. */
export interface ManagementState {
  pipelines: Pipeline[];
  /** One line per object that is not a valid Pipeline (left out, as the gateway leaves it out). */
  invalid: string[];
  /** `namespace/name` of every GitopsCluster, or undefined when they could not be listed. */
  gitopsClusters: Set<string> | undefined;
}

/** Pages of 500, as the gateway lists Pipelines; each call gives up after 15 s. */
const PAGE = 500;
const CALL_TIMEOUT_MS = 15_000;

/**
 * The Pipelines (of `namespaces`, or all) and the GitopsClusters in the management cluster.
 * A failure to list Pipelines is a SourceError naming `access.where`; GitopsClusters are only
 * used to warn, so failing to list them is not one.
 */
export async function readManagement(
  access: ManagementAccess,
  namespaces: readonly string[],
  pipelineSelector?: string,
): Promise<ManagementState> {
  return withKubeRest(access.kubeConfig, CALL_TIMEOUT_MS, async (rest) => {
    const scopes = namespaces.length === 0 ? [undefined] : namespaces;
    const items: unknown[] = [];
    for (const ns of scopes) items.push(...(await listOrFail(rest, ns, access, pipelineSelector)));
    const pipelines: Pipeline[] = [];
    const invalid: string[] = [];
    for (const item of items) {
      const checked = checkPipeline(item);
      if (checked.ok) pipelines.push(checked.pipeline);
      else invalid.push(`${objectName(item)}: ${checked.problem}`);
    }
    const gitopsClusters = await listAll(rest, GITOPS_CLUSTER, undefined).then(
      (list) => new Set(list.map(objectName)),
      () => undefined,
    );
    return { pipelines, invalid, gitopsClusters };
  });
}

async function listOrFail(
  rest: KubeRest,
  namespace: string | undefined,
  access: ManagementAccess,
  labelSelector: string | undefined,
): Promise<unknown[]> {
  try {
    return await listAll(rest, PIPELINE, namespace, labelSelector);
  } catch (error) {
    const failure = classifyKubeError(error);
    const scope = namespace === undefined ? '' : ` in namespace ${namespace}`;
    const hint =
      failure.status === 404 ? ' (is the Pipeline CRD, pipelines.weave.works, installed?)' : '';
    throw new SourceError(
      `cannot list Pipelines${scope} through ${access.where}: ${failure.message}${hint}`,
    );
  }
}

async function listAll(
  rest: KubeRest,
  resource: ResourceCoordinates,
  namespace: string | undefined,
  labelSelector?: string,
): Promise<unknown[]> {
  const path = resourcePath(resource, namespace);
  const list = await listAllPages((token) =>
    rest.get(path, { limit: PAGE, continue: token, labelSelector }),
  );
  return list.items;
}

function objectName(item: unknown): string {
  const meta = (item as { metadata?: { namespace?: unknown; name?: unknown } }).metadata;
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return `${text(meta?.namespace)}/${text(meta?.name)}`;
}
