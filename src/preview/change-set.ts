/**
 * The change a pending promotion would make, as the preview shows it and an approver signs it:
 * per target the revision move and the app's source, and the strategy's own change (the pull
 * request's diff against its base commit, the webhook's body, the Event). Its digest is the
 * sha256 of its canonical JSON, less what varies with the moment of sending (a webhook's
 * attempt and timestamp), so the same change has the same digest on every replica.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../json/canonical-json.js';

/** Where a target's app comes from: a HelmRelease's chart, or a Kustomization's source. */
export interface AppSource {
  kind: string;
  name: string;
  namespace?: string;
  /** HelmRelease: the chart's name. */
  chart?: string;
  /** Kustomization: the path in its source. */
  path?: string;
}

/** One target's move: what it runs now (absent: unknown) and what the promotion sets. */
export interface RevisionMove {
  /** cluster/namespace/name of the target's app object. */
  target: string;
  from?: string;
  to: string;
  /** Absent when the object could not be read. */
  source?: AppSource;
}

/** One file of a pull request's change: its unified diff against the base commit. */
export interface FileChange {
  path: string;
  diff: string;
}

/** A pull-request strategy's change: the base commit it edits and the files' diffs. */
export interface PullRequestChange {
  kind: 'pull-request';
  repository: string;
  baseBranch: string;
  baseCommit: string;
  branch: string;
  files: FileChange[];
  /** True when the diffs were cut at the size bound (MAX_DIFF_BYTES). */
  truncated: boolean;
}

/** A webhook strategy's change: the endpoint's name and the exact body it would be sent. */
export interface WebhookChange {
  kind: 'webhook';
  endpoint: string;
  /** The JSON body, byte for byte, with the attempt and timestamp as of the preview. */
  body: string;
  /** Body members that take their value when sent, left out of the digest. */
  varies: string[];
}

/** A notification strategy's change: the Event it would record on the Pipeline. */
export interface NotificationChange {
  kind: 'notification';
  event: {
    type: string;
    reason: string;
    message: string;
    annotations: Record<string, string>;
  };
}

/** What a strategy would do; `none` when the Pipeline names no strategy for the environment. */
export type StrategyChange =
  | PullRequestChange
  | WebhookChange
  | NotificationChange
  | { kind: 'none' }
  | { kind: 'unavailable'; reason: string; message: string };

/** The whole change of one pending promotion. */
export interface ChangeSet {
  pipeline: { namespace: string; name: string };
  environment: string;
  revision: string;
  moves: RevisionMove[];
  change: StrategyChange;
}

/** The part of `set` its digest covers: everything but what varies with the sending. */
function digestedPart(set: ChangeSet): unknown {
  if (set.change.kind !== 'webhook') return set;
  const { varies } = set.change;
  const parsed = JSON.parse(set.change.body) as Record<string, unknown>;
  const body = Object.fromEntries(Object.entries(parsed).filter(([k]) => !varies.includes(k)));
  return { ...set, change: { ...set.change, body } };
}

/** `sha256:<hex>` over the canonical JSON of `set` (see the module comment). */
export function changeDigest(set: ChangeSet): string {
  const hash = createHash('sha256').update(canonicalJson(digestedPart(set)), 'utf8');
  return `sha256:${hash.digest('hex')}`;
}

/** A one-line summary a person reads before the diff: "prod: 6.5.0 -> 6.6.0 by pull request (2 files)". */
export function changeSummary(set: ChangeSet): string {
  const froms = [...new Set(set.moves.map((m) => m.from ?? 'unknown'))];
  const from = froms.length === 0 ? 'unknown' : froms.join(', ');
  return `${set.environment}: ${from} -> ${set.revision} ${strategyWords(set.change)}`;
}

function strategyWords(change: StrategyChange): string {
  switch (change.kind) {
    case 'pull-request': {
      const n = change.files.length;
      return `by pull request on ${change.baseBranch} (${String(n)} ${n === 1 ? 'file' : 'files'})`;
    }
    case 'webhook':
      return `by webhook ${change.endpoint}`;
    case 'notification':
      return 'by a Promote event';
    case 'none':
      return 'with no promotion strategy';
    case 'unavailable':
      return `(change unavailable: ${change.reason})`;
  }
}
