/**
 * The pull-request strategy's two ports: the Git side (one commit on top of the base branch,
 * force-pushed to the promotion branch) and the forge side (open or update the pull request,
 * read its state). Both answer with named outcomes and classified, secret-free failures.
 */
import type { ForgeFailure, ForgeKind } from './forge-answers.js';

/** Where the environment's manifests live, as the Pipeline's `pull-request` spec names them. */
export interface RepositoryRef {
  kind: ForgeKind;
  /** The repository's URL as written in the spec (https://host/owner/repo[.git]). */
  url: string;
  baseBranch: string;
}

/**
 * What the spec's Secret holds: `token` for the forge's API (and Git, unless `username` and
 * `password` are set for Git over HTTPS). Never logged, never in a message or status.
 */
export interface ForgeCredentials {
  token: string;
  username?: string;
  password?: string;
}

/** A commit's author (and committer). */
export interface CommitAuthor {
  name: string;
  email: string;
}

/** One promotion's change to the repository. */
export interface PromotionChange {
  repository: RepositoryRef;
  credentials: ForgeCredentials;
  /** `promotion-{namespace}-{pipeline}-{environment}`. */
  branch: string;
  /** The marker text, `<namespace>:<pipeline>:<environment>`. */
  marker: string;
  revision: string;
  /** Other markers set in the same commit (a train's members sharing one pull request). */
  also?: readonly { marker: string; revision: string }[];
  author: CommitAuthor;
  message: string;
  /** Commit time, epoch milliseconds. */
  now: number;
  /** Aborts every Git request of this push (the attempt's deadline). */
  signal?: AbortSignal;
}

/**
 * Pushed: the branch now holds one new commit on top of the base's head. UpToDate: it already
 * held exactly that change on the current base (a retry), nothing was pushed. AlreadyAtRevision:
 * the base branch already carries `revision` in every marked value, so there is nothing to
 * propose. Failed: a classified failure (e.g. NoMarker, BranchProtected, Unauthorized).
 */
export type PushOutcome =
  | { outcome: 'Pushed' | 'UpToDate'; commit: string; base: string; files: string[] }
  | { outcome: 'AlreadyAtRevision'; base: string }
  | { outcome: 'Failed'; failure: ForgeFailure };

/** One file the change edits: its text on the base commit and after the marked values are set. */
export interface EditedFile {
  path: string;
  before: string;
  after: string;
}

/**
 * What a push would do, computed without writing anything: the base commit and each edited
 * file (none when the base already holds the revision), or why it cannot be known.
 */
export type EditOutcome =
  | { outcome: 'Edits'; base: string; files: EditedFile[] }
  | { outcome: 'Failed'; failure: ForgeFailure };

/** The base branch's head commit, read from the remote's refs alone, or why not. */
export type HeadOutcome =
  { outcome: 'Head'; base: string } | { outcome: 'Failed'; failure: ForgeFailure };

/** The Git side: fetch the base shallowly, set the marked values, commit, force-push. */
export interface PromotionPusher {
  push(change: PromotionChange): Promise<PushOutcome>;
  /** The edits `push` would commit on the current base, by the same code; reads only. */
  edits?(change: PromotionChange): Promise<EditOutcome>;
  /** The current head of the change's base branch (one ref listing; no objects fetched). */
  baseHead?(change: PromotionChange): Promise<HeadOutcome>;
}

/** A pull (GitHub) or merge (GitLab) request, as the Pipeline status records it. */
export interface PullRequestRef {
  /** GitHub's number, GitLab's iid. */
  number: number;
  /** The page a person opens (html_url / web_url); carries no credentials. */
  url: string;
  state: 'open' | 'merged' | 'closed';
}

/** The text of a promotion's pull request. */
export interface PullRequestText {
  title: string;
  body: string;
}

/** A forge call's answer: the value, or a classified failure. */
export type ForgeResult<T> = { ok: true; value: T } | { ok: false; failure: ForgeFailure };

/** The forge side, bound to one repository and one token. */
export interface ForgeClient {
  /**
   * Opens the request from `branch` into the base branch, or, when one is open already for that
   * branch, updates its title and body. `created` tells which.
   */
  openOrUpdate(
    branch: string,
    text: PullRequestText,
  ): Promise<ForgeResult<{ request: PullRequestRef; created: boolean }>>;
  /** The request's current state (for status refreshes). */
  get(number: number): Promise<ForgeResult<PullRequestRef>>;
}
