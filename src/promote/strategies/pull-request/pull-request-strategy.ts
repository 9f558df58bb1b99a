/**
 * The pull-request strategy: the environment's desired revision is changed in Git and proposed
 * as a pull (merge) request; Flux rolls it out once a person or a rule merges it, and the
 * gateway verifies that rollout like any other. The claim makes it run once per (environment,
 * revision); a retry after a half-done attempt finds its own push (UpToDate) and its own open
 * request, so it neither pushes twice nor opens a second request.
 */
import type { SecretKeyReader } from '../../../auth/legacy-keys.js';
import type { PullRequestSettings } from '../../../config/gateway-config.js';
import type { PullRequestStrategySpec } from '../../../pipeline/pipeline-resource.js';
import type {
  PromotionStrategy,
  StrategyContext,
  StrategyPreview,
  StrategyResult,
} from '../strategy.js';
import type { ForgeFailure } from '../../../forge/forge-answers.js';
import { markerFor } from './markers.js';
import { otherMarkers, trainBranch, trainPullRequestText } from './shared-pull-request.js';
import { readCredentials } from '../../../forge/forge-credentials.js';
import { checkRepository } from '../../../forge/repository.js';
import type {
  ForgeClient,
  ForgeCredentials,
  PromotionChange,
  PromotionPusher,
  PullRequestText,
  RepositoryRef,
} from '../../../forge/forge-model.js';

/** What the strategy needs from the rest of the gateway; all injectable. */
export interface PullRequestPorts {
  /** Reads a key of a Secret in the Pipeline's namespace on the management cluster. */
  readSecret: SecretKeyReader;
  pusher: PromotionPusher;
  /** A client for one repository and token (its calls aborted by `signal`), or why there can be none. */
  forge: (
    repository: RepositoryRef,
    credentials: ForgeCredentials,
    signal?: AbortSignal,
  ) => ForgeClient | ForgeFailure;
  /** The request's title and body (weave's metadata block). */
  text: (
    namespace: string,
    pipeline: string,
    environment: string,
    revision: string,
  ) => PullRequestText;
  settings: PullRequestSettings;
  now: () => number;
}

/** weave's branch name: one branch per (pipeline, environment), force-updated. */
export function promotionBranch(namespace: string, pipeline: string, environment: string): string {
  return `promotion-${namespace}-${pipeline}-${environment}`;
}

/** The configured commit message with its placeholders filled in (each may appear any number of times). */
export function commitMessage(
  template: string,
  namespace: string,
  pipeline: string,
  ctx: Pick<StrategyContext, 'environment' | 'revision'>,
): string {
  const values: Record<string, string> = {
    namespace,
    pipeline,
    environment: ctx.environment,
    revision: ctx.revision,
  };
  return template.replace(
    /\{(namespace|pipeline|environment|revision)\}/g,
    (_, key: string) => values[key] ?? '',
  );
}

/**
 * The repository `spec` names, once the operator's policy allows it (checked first: nothing is
 * read for a refused spec), and the credentials of its Secret in `namespace`; or why not.
 */
export async function resolveRepository(
  spec: PullRequestStrategySpec,
  namespace: string,
  ports: Pick<PullRequestPorts, 'readSecret' | 'settings'>,
): Promise<{ repository: RepositoryRef; credentials: ForgeCredentials } | ForgeFailure> {
  const repository = checkRepository(spec, ports.settings);
  if ('reason' in repository) return repository;
  const credentials = await readCredentials(ports.readSecret, namespace, spec.secretRef.name);
  return 'reason' in credentials ? credentials : { repository, credentials };
}

/** A strategy that proposes each promotion of `spec`'s repository as a pull request. */
export function pullRequestStrategy(
  spec: PullRequestStrategySpec,
  ports: PullRequestPorts,
): PromotionStrategy {
  return {
    name: 'pull-request',
    // Every Git and forge call of the attempt stops at its deadline (ctx.signal).
    attemptTimeoutMs: ports.settings.attemptTimeoutMs,
    run: (ctx) => propose(spec, ports, ctx),
    preview: (ctx) => previewProposal(spec, ports, ctx),
    previewKey: (ctx) => baseOf(spec, ports, ctx),
  };
}

/** The Git change one attempt pushes: the same for the push and for its preview. */
function changeOf(
  ports: PullRequestPorts,
  ctx: StrategyContext,
  repository: RepositoryRef,
  credentials: ForgeCredentials,
): PromotionChange {
  const { namespace, name } = ctx.pipeline.metadata;
  const shared = ctx.sharedPullRequest;
  return {
    repository,
    credentials,
    branch:
      shared === undefined
        ? promotionBranch(namespace, name, ctx.environment)
        : trainBranch(shared, ctx.environment),
    marker: markerFor(namespace, name, ctx.environment),
    revision: ctx.revision,
    ...(shared === undefined
      ? {}
      : { also: otherMarkers(shared, namespace, name, ctx.environment) }),
    author: ports.settings.author,
    message:
      shared === undefined
        ? commitMessage(ports.settings.commitMessage, namespace, name, ctx)
        : trainPullRequestText(shared, ctx.environment).title,
    now: ports.now(),
    ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
  };
}

function unavailable(failure: ForgeFailure): StrategyPreview {
  return { kind: 'unavailable', reason: failure.reason, message: failure.message };
}

/** The files a push of `ctx` would edit on the current base commit, by the push's own code. */
async function previewProposal(
  spec: PullRequestStrategySpec,
  ports: PullRequestPorts,
  ctx: StrategyContext,
): Promise<StrategyPreview> {
  const resolved = await resolveRepository(spec, ctx.pipeline.metadata.namespace, ports);
  if ('reason' in resolved) return unavailable(resolved);
  const change = changeOf(ports, ctx, resolved.repository, resolved.credentials);
  if (ports.pusher.edits === undefined)
    return { kind: 'unavailable', reason: 'NotSupported', message: 'no preview of Git edits' };
  const edits = await ports.pusher.edits(change);
  if (edits.outcome === 'Failed') return unavailable(edits.failure);
  const { url, baseBranch } = resolved.repository;
  const { branch } = change;
  return {
    kind: 'pull-request',
    repository: url,
    baseBranch,
    branch,
    ...edits,
    files: edits.files,
  };
}

/** The base branch's head commit: a preview made on it stays right until it moves. */
async function baseOf(
  spec: PullRequestStrategySpec,
  ports: PullRequestPorts,
  ctx: StrategyContext,
): Promise<string | StrategyPreview> {
  const resolved = await resolveRepository(spec, ctx.pipeline.metadata.namespace, ports);
  if ('reason' in resolved) return unavailable(resolved);
  if (ports.pusher.baseHead === undefined) return '';
  const head = await ports.pusher.baseHead(
    changeOf(ports, ctx, resolved.repository, resolved.credentials),
  );
  return head.outcome === 'Failed' ? unavailable(head.failure) : head.base;
}

async function propose(
  spec: PullRequestStrategySpec,
  ports: PullRequestPorts,
  ctx: StrategyContext,
): Promise<StrategyResult> {
  const { namespace, name } = ctx.pipeline.metadata;
  const resolved = await resolveRepository(spec, namespace, ports);
  if ('reason' in resolved) return failed(resolved, ports.now());
  const { repository, credentials } = resolved;
  const text =
    ctx.sharedPullRequest === undefined
      ? ports.text(namespace, name, ctx.environment, ctx.revision)
      : trainPullRequestText(ctx.sharedPullRequest, ctx.environment);
  const change = changeOf(ports, ctx, repository, credentials);
  const { branch } = change;
  const pushed = await ports.pusher.push(change);
  if (pushed.outcome === 'Failed') return failed(pushed.failure, ports.now());
  if (pushed.outcome === 'AlreadyAtRevision') {
    return {
      ok: true,
      message: `${repository.baseBranch} already holds ${ctx.revision} for ${ctx.environment}: nothing to propose`,
    };
  }
  const forge = ports.forge(repository, credentials, ctx.signal);
  if ('reason' in forge) return failed(forge, ports.now());
  const opened = await forge.openOrUpdate(branch, text);
  if (!opened.ok) return failed(opened.failure, ports.now());
  const { request, created } = opened.value;
  const files = pushed.files.length === 1 ? '1 file' : `${String(pushed.files.length)} files`;
  return {
    ok: true,
    message: `${created ? 'opened' : 'updated'} pull request #${String(request.number)} setting ${ctx.revision} in ${files}`,
    details: { pullRequest: { url: request.url, state: request.state } },
  };
}

/** A forge failure as a strategy result; the forge's requested wait becomes retryNotBefore. */
export function failed(failure: ForgeFailure, now: number): StrategyResult {
  return {
    ok: false,
    reason: failure.reason,
    message: failure.message,
    retryable: failure.retryable,
    ...(failure.retryAfterMs === undefined ? {} : { retryNotBefore: now + failure.retryAfterMs }),
  };
}
