/**
 * The pull-request strategy's Git side, read only: what a push would commit, computed by the
 * push's own code (git-push.ts's fetch and tree edit) without writing to the remote, and the
 * base branch's current head from the remote's refs alone. A preview shows these.
 */
import * as isogit from 'isomorphic-git';
import type {
  EditedFile,
  EditOutcome,
  HeadOutcome,
  PromotionChange,
} from '../../../forge/forge-model.js';
import type { ForgeFailure } from '../../../forge/forge-answers.js';
import { gitFailure, gitHttpClient } from './git-http.js';
import {
  cloneUrl,
  editTree,
  fetchHead,
  gitAuth,
  openSession,
  type GitPusherOptions,
} from './git-push.js';

/** The read-only half of the Git side: `edits` and `baseHead` of PromotionPusher. */
export interface GitReader {
  edits(change: PromotionChange): Promise<EditOutcome>;
  baseHead(change: PromotionChange): Promise<HeadOutcome>;
}

interface Failed {
  outcome: 'Failed';
  failure: ForgeFailure;
}

/** A failure no retry can mend. */
function refused(reason: ForgeFailure['reason'], message: string): Failed {
  return { outcome: 'Failed', failure: { reason, message, retryable: false } };
}

/** The clone URL, or the failure cloneUrl gave for it. */
function urlOf(change: PromotionChange): string | Failed {
  const url = cloneUrl(change.repository);
  if (typeof url === 'string') return url;
  return url.outcome === 'Failed' ? url : refused('Invalid', 'the repository URL');
}

async function editsOf(
  change: PromotionChange,
  http: isogit.HttpClient,
  now: () => number,
): Promise<EditOutcome> {
  const url = urlOf(change);
  if (typeof url !== 'string') return url;
  const { baseBranch } = change.repository;
  try {
    const git = await openSession(change, http, url);
    const base = await fetchHead(git, `refs/heads/${baseBranch}`);
    if (base === undefined)
      return refused('NotFound', `the repository has no base branch ${baseBranch}`);
    const { commit } = await isogit.readCommit({ ...git, oid: base });
    const files: EditedFile[] = [];
    const edit = await editTree(git, commit.tree, '', change, (file) => files.push(file));
    if (edit.markers === 0) {
      const marker = `{"$promotion": "${change.marker}"}`;
      return refused('NoMarker', `no YAML file on ${baseBranch} carries the marker ${marker}`);
    }
    return { outcome: 'Edits', base, files };
  } catch (error) {
    const { kind } = change.repository;
    const step = `fetching branch ${baseBranch}`;
    return { outcome: 'Failed', failure: gitFailure(error, kind, change.branch, step, now()) };
  }
}

async function headOf(
  change: PromotionChange,
  http: isogit.HttpClient,
  now: () => number,
): Promise<HeadOutcome> {
  const url = urlOf(change);
  if (typeof url !== 'string') return url;
  const { baseBranch } = change.repository;
  const ref = `refs/heads/${baseBranch}`;
  const auth = gitAuth(change);
  try {
    const refs = await isogit.listServerRefs({ http, url, onAuth: () => auth, prefix: ref });
    const head = refs.find((r) => r.ref === ref)?.oid;
    if (head === undefined)
      return refused('NotFound', `the repository has no base branch ${baseBranch}`);
    return { outcome: 'Head', base: head };
  } catch (error) {
    const { kind } = change.repository;
    const step = `listing branch ${baseBranch}`;
    return { outcome: 'Failed', failure: gitFailure(error, kind, change.branch, step, now()) };
  }
}

/** The read-only Git side; never throws: every failure comes back classified. */
export function gitReader(options: GitPusherOptions = {}): GitReader {
  const http = gitHttpClient(options);
  const now = options.now ?? Date.now;
  const transport = (change: PromotionChange) =>
    change.signal === undefined ? http : gitHttpClient({ ...options, signal: change.signal });
  return {
    edits: (change) => editsOf(change, transport(change), now),
    baseHead: (change) => headOf(change, transport(change), now),
  };
}
