/**
 * `promotion-gateway flux-config`: the Flux Provider and Alert each target cluster needs so
 * that its notification-controller sends the gateway the events of every object a Pipeline
 * references there, generated from the Pipelines in the management cluster. Flux matches an
 * Alert's event source namespace literally (`namespace: '*'` matches nothing), so the
 * namespaces are listed, which only the Pipelines can say.
 */
import {
  parseCommand,
  runCommand,
  UsageError,
  type CommandIo,
  type CommandValues,
} from './args.js';
import {
  NamingError,
  configuredNames,
  planClusters,
  withProposedNames,
} from './flux-config-plan.js';
import type { ClusterPlan, FluxPlan } from './flux-config-plan.js';
import { redactUrls } from '../text/redact-url.js';
import type { FluxObjectOptions } from './flux-config-objects.js';
import {
  existingKeyFiles,
  gatewayEntriesText,
  GATEWAY_KEYS_SECRET,
  newKey,
  stdoutText,
  writeFolders,
} from './flux-config-output.js';
import {
  DEFAULT_NAMING,
  loadManagementAccess,
  readGatewayNaming,
  readManagement,
  SourceError,
  type GatewayNaming,
  type ManagementState,
} from './flux-config-source.js';

/** The usage of `promotion-gateway flux-config`. */
export const FLUX_CONFIG_USAGE = `Usage: promotion-gateway flux-config --address URL [--kubeconfig PATH] [--context NAME]
         [--config FILE] [--flux-namespace NS] [--cluster NAME,...] [--per-namespace]
         [-o DIR [--generate-keys]]

Reads the Pipelines in the management cluster and writes, for each cluster they deploy to,
the Flux objects that send the gateway that cluster's events: a Provider (generic-hmac,
address URL/v1/events/<cluster>, key from the Secret promotion-gateway-hmac) and an Alert
listing every namespace and kind (HelmRelease, Kustomization) the Pipelines reference there.

  --address URL        the gateway's base URL as the clusters' Flux reaches it (required)
  --kubeconfig PATH    the management cluster's kubeconfig (default: KUBECONFIG, ~/.kube/config)
  --context NAME       its context (default: the current context)
  --config FILE        the gateway's configuration: its cluster names and pipelineNamespaces
                       (and a shard's sharding.pipelineSelector: then only the Pipelines that
                       shard serves, and --address is that shard's); without it each
                       GitopsCluster is named after itself
  --flux-namespace NS  where the Provider, Alert and Secret go (default flux-system)
  --cluster NAMES      only these clusters (comma-separated gateway names)
  --per-namespace      one Provider, Alert and Secret per namespace instead, for clusters whose
                       notification-controller runs with --no-cross-namespace-refs=true
  -o, --output DIR     one kustomize folder per cluster, DIR/<cluster>/, instead of stdout;
                       stdout then gets the gateway configuration's clusters entries
  --generate-keys      with -o: a new key per cluster, in DIR/<cluster>/secret.yaml and
                       DIR/${GATEWAY_KEYS_SECRET}/<cluster> (mode 0600, kept out of Git);
                       existing key files are never replaced

Problems (flags, kubeconfig, cluster, configuration, existing keys) exit with status 2.
`;

const OPTIONS = {
  address: { type: 'string' },
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  config: { type: 'string' },
  'flux-namespace': { type: 'string' },
  cluster: { type: 'string' },
  'per-namespace': { type: 'boolean' },
  output: { type: 'string', short: 'o' },
  'generate-keys': { type: 'boolean' },
} as const;

type Values = CommandValues<typeof OPTIONS>;

/** What flux-config writes to: the generated text on `out`, notes and problems on `err`. */
export interface FluxConfigIo extends CommandIo {
  err: NodeJS.WritableStream;
}

/**
 * Runs `flux-config` on `args`; resolves to the exit status: 0 when written, 2 for a mistake
 * or an input that cannot be used (one line on `err`), 1 for anything unexpected.
 */
export function runFluxConfig(args: string[], io: FluxConfigIo): Promise<number> {
  return runCommand(io.err, FLUX_CONFIG_USAGE, async () => {
    const values = parseCommand(args, OPTIONS);
    if (values.help === true) {
      io.out.write(FLUX_CONFIG_USAGE);
      return 0;
    }
    try {
      return await fluxConfig(values, io);
    } catch (error) {
      if (!(error instanceof SourceError || error instanceof NamingError)) throw error;
      io.err.write(`flux-config: ${redactUrls(error.message)}\n`);
      return 2;
    }
  });
}

async function fluxConfig(values: Values, io: FluxConfigIo): Promise<number> {
  const options = objectOptions(values);
  const output = values.output;
  if (values['generate-keys'] === true && output === undefined)
    throw new UsageError(
      '--generate-keys needs -o DIR: keys are written to files, never to stdout',
    );
  const gateway = values.config === undefined ? DEFAULT_NAMING : readGatewayNaming(values.config);
  const access = loadManagementAccess(values.kubeconfig, values.context, io.env);
  const state = await readManagement(access, gateway.pipelineNamespaces, gateway.pipelineSelector);
  if (state.pipelines.length === 0)
    throw new SourceError(`no Pipelines found through ${access.where}: nothing to write`);
  const plans = selected(plan(state, gateway, values.config !== undefined), values.cluster);
  for (const note of notes(state, plans)) io.err.write(`flux-config: ${note}\n`);
  if (plans.clusters.length === 0)
    throw new SourceError(
      'no Pipeline references a HelmRelease or Kustomization: nothing to write',
    );
  if (output === undefined) {
    io.out.write(stdoutText(plans.clusters, options));
    if (plans.clusters.some((p) => !p.configured)) io.err.write(namingNote(plans));
    return 0;
  }
  const flags = { generateKeys: values['generate-keys'] === true, configFile: values.config };
  return writeOutput(output, plans, options, flags, io);
}

/** The Flux objects' placement from the flags; a UsageError for a bad value. */
function objectOptions(values: Values): FluxObjectOptions {
  const address = values.address;
  if (address === undefined || address === '') throw new UsageError('--address URL is required');
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new UsageError(`--address must be an http(s) URL, not "${redactUrls(address)}"`);
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.search !== '' || url.hash !== '')
    throw new UsageError('--address must be an http(s) URL without query or fragment');
  if (url.username !== '' || url.password !== '')
    throw new UsageError('--address must not carry credentials: the HMAC key authenticates');
  const fluxNamespace = values['flux-namespace'] ?? 'flux-system';
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(fluxNamespace) || fluxNamespace.length > 63)
    throw new UsageError('--flux-namespace must be a namespace name');
  return {
    gatewayUrl: url.href.replace(/\/+$/, ''),
    fluxNamespace,
    perNamespace: values['per-namespace'] === true,
  };
}

function plan(state: ManagementState, gateway: GatewayNaming, fromConfig: boolean): FluxPlan {
  const naming = withProposedNames(state.pipelines, gateway.naming);
  const configured = fromConfig ? configuredNames(gateway.naming) : new Set<string>();
  return planClusters(state.pipelines, naming, configured);
}

/** The plan's clusters, or those `filter` names (comma-separated); unknown names are a mistake. */
function selected(fluxPlan: FluxPlan, filter: string | undefined): FluxPlan {
  if (filter === undefined) return fluxPlan;
  const wanted = filter
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  const known = fluxPlan.clusters.map((c) => c.name);
  const unknown = wanted.filter((n) => !known.includes(n));
  if (unknown.length > 0 || wanted.length === 0)
    throw new UsageError(
      `--cluster: no Pipeline deploys to ${unknown.join(', ') || '(none given)'} (clusters: ${known.join(', ')})`,
    );
  return { ...fluxPlan, clusters: fluxPlan.clusters.filter((c) => wanted.includes(c.name)) };
}

/** What the user should know but that does not stop the command, one line each. */
function notes(state: ManagementState, fluxPlan: FluxPlan): string[] {
  const lines = [
    ...state.invalid.map((line) => `skipped ${line}`),
    ...fluxPlan.skipped.map((line) => `skipped ${line}`),
  ];
  if (state.gitopsClusters === undefined) {
    lines.push("could not list GitopsClusters: not checking that the Pipelines' ones exist");
    return lines;
  }
  for (const cluster of fluxPlan.clusters) {
    const ref = cluster.gitopsCluster;
    if (ref !== undefined && !state.gitopsClusters.has(`${ref.namespace}/${ref.name}`))
      lines.push(
        `GitopsCluster ${ref.namespace}/${ref.name} (cluster ${cluster.name}) does not exist: the gateway cannot read that cluster until it does`,
      );
  }
  return lines;
}

function namingNote(fluxPlan: FluxPlan): string {
  const lines = fluxPlan.clusters
    .filter((c) => !c.configured)
    .map((c) => {
      const ref = c.gitopsCluster;
      const what =
        ref === undefined ? 'the management cluster' : `GitopsCluster ${ref.namespace}/${ref.name}`;
      return `  ${c.name}: ${what}\n`;
    });
  return `flux-config: the gateway configuration must name these clusters so (clusters[].name, gitopsCluster; -o DIR prints the entries):\n${lines.join('')}`;
}

async function writeOutput(
  dir: string,
  fluxPlan: FluxPlan,
  options: FluxObjectOptions,
  flags: { generateKeys: boolean; configFile: string | undefined },
  io: FluxConfigIo,
): Promise<number> {
  const { generateKeys, configFile } = flags;
  const plans: readonly ClusterPlan[] = fluxPlan.clusters;
  let keys: Map<string, string> | undefined;
  if (generateKeys) {
    const existing = await existingKeyFiles(dir, plans);
    if (existing.length > 0)
      throw new SourceError(
        `${existing.join(', ')} exist${existing.length === 1 ? 's' : ''}: a new key would replace the one in use; remove the files first to make new keys`,
      );
    keys = new Map(plans.map((p) => [p.name, newKey()]));
  }
  const written = await writeFolders(dir, plans, options, keys).catch((error: unknown) => {
    const { code, path } = error as { code?: unknown; path?: unknown };
    if (typeof code !== 'string' || typeof path !== 'string') throw error;
    throw new SourceError(`cannot write ${path} (${code})`);
  });
  for (const file of written)
    io.err.write(
      `flux-config: wrote ${dir}/${file.path}${file.secret ? ' (secret, mode 0600)' : ''}\n`,
    );
  io.out.write(
    gatewayEntriesText(plans, {
      ...(keys === undefined ? {} : { keysDir: `${dir}/${GATEWAY_KEYS_SECRET}` }),
      ...(configFile === undefined ? {} : { configFile }),
    }),
  );
  return 0;
}
