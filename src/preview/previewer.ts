/**
 * Previews: the change a pending promotion of one environment would make, computed by its
 * strategy's own `preview` (so what is shown is what `run` writes), with every target's
 * revision move and app source, a digest and a summary. The strategy's part, the costly one
 * (a forge fetch), is kept in a bounded cache by what it depends on; the sources are read anew.
 */
import type { CatalogTarget } from '../catalog/targets.js';
import type {
  EnvironmentDecision,
  SharedPullRequest,
  TargetStatus,
} from '../evaluate/decisions.js';
import type { ReadResult } from '../kube/ports.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';
import type { PromotionStrategy, StrategyPreview } from '../promote/strategies/strategy.js';
import { appSourceOf } from './app-source.js';
import {
  changeDigest,
  changeSummary,
  type ChangeSet,
  type RevisionMove,
  type StrategyChange,
} from './change-set.js';
import { PreviewCache, previewKey } from './preview-cache.js';
import { fileChanges } from './unified-diff.js';

/** A change set with its digest and summary, as the API, the CLI and the web view show it. */
export interface Preview extends ChangeSet {
  digest: string;
  summary: string;
}

/** The decision outcomes that hold a pending promotion of their revision. */
const PENDING = new Set(['Promote', 'Waiting', 'WaitingApproval']);

/** The revision a decision holds pending (and its attempt), or undefined when it holds none. */
export function pendingOf(decision: EnvironmentDecision | undefined): Pending | undefined {
  if (decision?.revision === undefined) return undefined;
  if (!PENDING.has(decision.outcome)) return undefined;
  const { redelivery, sharedPullRequest } = decision;
  return {
    revision: decision.revision,
    attempt: decision.attempt ?? 1,
    ...(redelivery === undefined ? {} : { redelivery }),
    ...(sharedPullRequest === undefined ? {} : { sharedPullRequest }),
  };
}

/**
 * A pending promotion as its preview makes it: the revision, the attempt and, for a release
 * train's member, the pull request it shares with other members (the change shows their edits).
 */
export interface Pending {
  revision: string;
  attempt: number;
  redelivery?: number;
  sharedPullRequest?: SharedPullRequest;
}

/** What previews need: the strategies, one GET per target, and a cache. */
export interface PreviewerDeps {
  strategyFor: (pipeline: Pipeline, environment: string) => PromotionStrategy | undefined;
  /** One GET of a target's app object (its cluster's reader), for its source. */
  readObject: (target: CatalogTarget) => Promise<ReadResult>;
  cache?: PreviewCache<StrategyChange>;
}

/** What one preview is asked for: the Pipeline, the environment's pending revision, its targets. */
export interface PreviewRequest {
  pipeline: Pipeline;
  environment: string;
  pending: Pending;
  /** The environment's catalog targets and their verified statuses (aligned by index). */
  targets: readonly CatalogTarget[];
  statuses: readonly (TargetStatus | undefined)[];
}

/** Computes previews; see the module comment. */
export class Previewer {
  private readonly cache: PreviewCache<StrategyChange>;

  constructor(private readonly deps: PreviewerDeps) {
    this.cache = deps.cache ?? new PreviewCache<StrategyChange>();
  }

  /** The preview of `request`; never rejects for a remote's failure (the change says why). */
  async preview(request: PreviewRequest): Promise<Preview> {
    const { pipeline, environment, pending } = request;
    const [change, moves] = await Promise.all([this.changeOf(request), this.movesOf(request)]);
    const { namespace, name } = pipeline.metadata;
    const set: ChangeSet = {
      pipeline: { namespace, name },
      environment,
      revision: pending.revision,
      moves,
      change,
    };
    return { ...set, digest: changeDigest(set), summary: changeSummary(set) };
  }

  /** The strategy's change, from the cache while what it depends on is the same. */
  private async changeOf(request: PreviewRequest): Promise<StrategyChange> {
    const { pipeline, environment, pending } = request;
    const strategy = this.deps.strategyFor(pipeline, environment);
    if (strategy === undefined) return { kind: 'none' };
    const ctx = { pipeline, environment, ...pending };
    const dependsOn = (await strategy.previewKey?.(ctx)) ?? '';
    if (typeof dependsOn !== 'string') return changeFrom(dependsOn);
    const { namespace, name, generation } = pipeline.metadata;
    const key = previewKey([
      ...[namespace, name, generation ?? 0, environment, pending.revision],
      ...[pending.attempt, pending.redelivery ?? 0, dependsOn],
      pending.sharedPullRequest?.digest ?? '',
    ]);
    // A webhook's body carries the time of its sending: made anew, never cached.
    const cached = strategy.name === 'webhook' ? undefined : this.cache.get(key);
    if (cached !== undefined) return cached;
    const change = changeFrom(await strategy.preview(ctx));
    if (change.kind !== 'unavailable') this.cache.set(key, change);
    return change;
  }

  private async movesOf(request: PreviewRequest): Promise<RevisionMove[]> {
    return Promise.all(
      request.targets.map(async (target) => {
        const read = await this.deps.readObject(target);
        const source = read.ok ? appSourceOf(read.value) : undefined;
        const from = request.statuses[target.index]?.revision;
        const { cluster, namespace } = target.location;
        return {
          target: `${cluster}/${namespace}/${target.ref.name}`,
          ...(from === undefined ? {} : { from }),
          to: request.pending.revision,
          ...(source === undefined ? {} : { source }),
        };
      }),
    );
  }
}

/** A strategy's preview as the change set holds it: a pull request's files as diffs. */
export function changeFrom(preview: StrategyPreview): StrategyChange {
  switch (preview.kind) {
    case 'pull-request': {
      const { files, truncated } = fileChanges(preview.files);
      const { repository, baseBranch, branch, base } = preview;
      return {
        kind: 'pull-request',
        repository,
        baseBranch,
        baseCommit: base,
        branch,
        files,
        truncated,
      };
    }
    case 'notification': {
      const { type, reason, message, annotations } = preview.event;
      return {
        kind: 'notification',
        event: { type, reason, message, annotations: annotations ?? {} },
      };
    }
    default:
      return preview;
  }
}
