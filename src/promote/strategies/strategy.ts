/**
 * The contract every promotion strategy keeps: run once per claimed attempt, never throw for an
 * expected failure, and return a secret-free message.
 */
import type { SharedPullRequest } from '../../evaluate/decisions.js';
import type { EditedFile } from '../../forge/forge-model.js';
import type { EventRecord } from '../../kube/ports.js';
import type { Pipeline } from '../../pipeline/pipeline-resource.js';

/** What a strategy is asked to do: promote `revision` of `pipeline` to `environment`. */
export interface StrategyContext {
  pipeline: Pipeline;
  environment: string;
  revision: string;
  /** The claimed attempt number (1-based). */
  attempt: number;
  /** Which delivery of `revision` beyond the first this is (a drift correction); absent: the first. */
  redelivery?: number;
  /** Set for a rollback: the revision rolled back (`revision` is the earlier one it goes to). */
  rollback?: { from: string };
  /**
   * Set for a train member proposed with other members: the pull-request strategy proposes them
   * all in one request (the others ignore it).
   */
  sharedPullRequest?: SharedPullRequest;
  /**
   * Aborts when the attempt's time is up (its claim's deadline less the margin for recording
   * the outcome): every call the strategy makes stops then, so no action of this attempt can
   * land after another replica may have resolved its claim.
   */
  signal?: AbortSignal;
}

/** Extra outcome data a strategy may report, stored in the promotion record. */
export interface StrategyDetails {
  pullRequest?: { state: string; url: string };
}

/**
 * ok: the action was carried out. Not ok: `reason` (PascalCase) says why and `retryable` whether
 * a later attempt could succeed. Messages never hold secrets or response bodies.
 */
export type StrategyResult =
  | { ok: true; message: string; details?: StrategyDetails }
  | {
      ok: false;
      reason: string;
      message: string;
      retryable: boolean;
      /** Epoch ms before which the remote asked not to be called again (rate limits). */
      retryNotBefore?: number;
    };

/**
 * What `run` would do for the same context, computed by the code `run` uses, with nothing
 * written: the Event it records, the body it posts, or the files it edits on the base commit.
 */
export type StrategyPreview =
  | { kind: 'notification'; event: EventRecord }
  | { kind: 'webhook'; endpoint: string; body: string; varies: string[] }
  | {
      kind: 'pull-request';
      repository: string;
      baseBranch: string;
      branch: string;
      base: string;
      files: EditedFile[];
    }
  | { kind: 'unavailable'; reason: string; message: string };

/** One way of carrying out a promotion; `name` appears in logs and messages. */
export interface PromotionStrategy {
  readonly name: string;
  /**
   * The longest one attempt may take (ms): the claim's deadline is set from it, and the attempt
   * is stopped (its `signal` aborts) when it has passed.
   */
  readonly attemptTimeoutMs: number;
  /** Carry out the promotion once. Resolves with the outcome; should not reject. */
  run(ctx: StrategyContext): Promise<StrategyResult>;
  /** What `run(ctx)` would do, read only; should not reject. */
  preview(ctx: StrategyContext): Promise<StrategyPreview>;
  /**
   * What a preview of `ctx` depends on outside the Pipeline (the pull request's base commit),
   * read cheaply so a cached preview can be reused while it stays the same; absent: nothing.
   */
  previewKey?(ctx: StrategyContext): Promise<string | StrategyPreview>;
}
