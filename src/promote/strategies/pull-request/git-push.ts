/**
 * The pull-request strategy's Git side, over smart HTTP with isomorphic-git and nothing on disk
 * (the container's root filesystem is read-only): a depth-1 fetch of the base branch into a
 * fresh in-memory repository, the marked values set by rewriting blobs and trees directly (no
 * working tree), one commit on the base's head, force-pushed to the promotion branch unless the
 * branch already holds that very change.
 */
import * as isogit from 'isomorphic-git';
import { memfs } from 'memfs';
import type { ForgeFailure } from '../../../forge/forge-answers.js';
import { gitFailure, gitHttpClient, type GitHttpOptions } from './git-http.js';
import { setMarkedValues } from './markers.js';
import { repositoryUrl } from '../../../forge/repository.js';
import type {
  EditedFile,
  PromotionChange,
  PromotionPusher,
  PushOutcome,
  RepositoryRef,
} from '../../../forge/forge-model.js';

/** Options of the Git side: the transport's (time limit, fetch) and the clock. */
export interface GitPusherOptions extends GitHttpOptions {
  /** Epoch ms, for the retry times of rate-limited answers. Default: Date.now. */
  now?: () => number;
}

/** One push's (or preview's) in-memory repository and remote. */
export interface Session {
  fs: isogit.PromiseFsClient;
  gitdir: string;
  cache: object;
  http: isogit.HttpClient;
  url: string;
  onAuth: isogit.AuthCallback;
}

/** What rewriting a tree (or blob) did. */
interface Edit {
  oid: string;
  /** Scalars marked for the environment below it. */
  markers: number;
  /** Paths whose marked values changed. */
  files: string[];
}

/** Told each file whose marked values change, with its text before and after. */
export type EditSink = (file: EditedFile) => void;

const GITDIR = '/repository.git';
const REMOTE_BASE = 'refs/remotes/origin';
/** markers.ts recognises a marker comment only when it holds this text verbatim. */
const MARKER_KEY = '$promotion';
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

function permanent(reason: ForgeFailure['reason'], message: string): PushOutcome {
  return { outcome: 'Failed', failure: { reason, message, retryable: false } };
}

/**
 * The URL to clone (`.git` appended), or the reason it cannot be one. Credentials in the URL
 * are refused, not used: they belong in the Secret, and would leak into logs from here.
 */
export function cloneUrl(repository: RepositoryRef): string | PushOutcome {
  const url = repositoryUrl(repository.url);
  if (typeof url === 'string') return permanent('Invalid', `the repository URL ${url}`);
  const path = url.pathname.replace(/\/+$/, '');
  if (path === '') return permanent('Invalid', 'the repository URL names no repository');
  return `${url.origin}${path}${path.endsWith('.git') ? '' : '.git'}`;
}

/** The Git credentials: the Secret's own pair, else the token under the forge's user name. */
export function gitAuth(change: PromotionChange): isogit.GitAuth {
  const { username, password, token } = change.credentials;
  if (username && password) return { username, password };
  return {
    username: change.repository.kind === 'github' ? 'x-access-token' : 'oauth2',
    password: token,
  };
}

/** A fresh in-memory bare repository with `url` as its origin and the change's credentials. */
export async function openSession(
  change: PromotionChange,
  http: isogit.HttpClient,
  url: string,
): Promise<Session> {
  // memfs's fs has the promises API isomorphic-git asks for; its types are wider than the ones
  // isomorphic-git declares.
  const fs = memfs().fs as unknown as isogit.PromiseFsClient;
  await isogit.init({ fs, gitdir: GITDIR, bare: true });
  // fetch files what it fetched under the remote's refspec: refs/remotes/origin/<branch>.
  await isogit.addRemote({ fs, gitdir: GITDIR, remote: 'origin', url });
  const auth = gitAuth(change);
  return { fs, gitdir: GITDIR, cache: {}, http, url, onAuth: () => auth };
}

/**
 * Fetches `remoteRef` at depth 1 (no tags, no other branch) and answers its head, or undefined
 * when the remote has no such ref. `haveRef` names a local ref the remote may skip objects of.
 */
export async function fetchHead(
  git: Session,
  remoteRef: string,
  haveRef = remoteRef,
): Promise<string | undefined> {
  try {
    const { fetchHead: head } = await isogit.fetch({
      ...git,
      headers: {},
      ref: haveRef,
      remoteRef,
      singleBranch: true,
      depth: 1,
      tags: false,
    });
    return head ?? undefined;
  } catch (error) {
    if (error instanceof isogit.Errors.NotFoundError && error.data.what === remoteRef)
      return undefined;
    throw error;
  }
}

function isYaml(entry: isogit.TreeEntry): boolean {
  // 120000 is a symbolic link: its blob is a path, not the file.
  return entry.type === 'blob' && entry.mode !== '120000' && /\.ya?ml$/.test(entry.path);
}

async function editBlob(
  git: Session,
  oid: string,
  path: string,
  change: PromotionChange,
  sink?: EditSink,
): Promise<Edit> {
  const unchanged = { oid, markers: 0, files: [] };
  const { blob } = await isogit.readBlob({ ...git, oid });
  let text: string;
  try {
    text = decoder.decode(blob);
  } catch {
    return unchanged; // not UTF-8, so not a YAML file markers.ts could edit
  }
  // Skips parsing the (many) files that cannot hold a marker.
  if (!text.includes(MARKER_KEY)) return unchanged;
  const edit = setMarkedValues(text, change.marker, change.revision);
  // The change's own marker counts (NoMarker); the others' values are set alongside.
  let after = edit.text;
  for (const other of change.also ?? [])
    after = setMarkedValues(after, other.marker, other.revision).text;
  if (after === text) return { ...unchanged, markers: edit.markers };
  sink?.({ path, before: text, after });
  const written = await isogit.writeBlob({ ...git, blob: encoder.encode(after) });
  return { oid: written, markers: edit.markers, files: [path] };
}

/**
 * Sets the marked values below tree `oid`; untouched entries and subtrees keep their ids. Each
 * changed file is told to `sink`, so a preview shows exactly what a push commits.
 */
export async function editTree(
  git: Session,
  oid: string,
  prefix: string,
  change: PromotionChange,
  sink?: EditSink,
): Promise<Edit> {
  const { tree } = await isogit.readTree({ ...git, oid });
  const result: Edit = { oid, markers: 0, files: [] };
  const entries: isogit.TreeEntry[] = [];
  for (const entry of tree) {
    const path = `${prefix}${entry.path}`;
    let edit: Edit | undefined;
    if (entry.type === 'tree') edit = await editTree(git, entry.oid, `${path}/`, change, sink);
    else if (isYaml(entry)) edit = await editBlob(git, entry.oid, path, change, sink);
    entries.push(edit === undefined ? entry : { ...entry, oid: edit.oid });
    result.markers += edit?.markers ?? 0;
    result.files.push(...(edit?.files ?? []));
  }
  if (result.files.length > 0) result.oid = await isogit.writeTree({ ...git, tree: entries });
  return result;
}

/** True when the remote branch's head already is the change's commit on the current base. */
async function holdsChange(git: Session, head: string, base: string, tree: string) {
  const { commit } = await isogit.readCommit({ ...git, oid: head });
  return commit.tree === tree && commit.parent.length === 1 && commit.parent[0] === base;
}

async function writeCommit(git: Session, change: PromotionChange, base: string, tree: string) {
  const who = {
    ...change.author,
    timestamp: Math.floor(change.now / 1000),
    timezoneOffset: 0,
  };
  const message = change.message.endsWith('\n') ? change.message : `${change.message}\n`;
  return isogit.writeCommit({
    ...git,
    commit: { message, tree, parent: [base], author: who, committer: who },
  });
}

async function forcePush(git: Session, commit: string, change: PromotionChange): Promise<void> {
  const ref = `refs/heads/${change.branch}`;
  await isogit.writeRef({ ...git, ref, value: commit, force: true });
  // isomorphic-git leaves out of the pack what the remote's HEAD has: naming the fetched base
  // so sends only the new commit and the blobs and trees it changed.
  const head = `${REMOTE_BASE}/${change.repository.baseBranch}`;
  const symbolic = { ref: `${REMOTE_BASE}/HEAD`, value: head, symbolic: true, force: true };
  await isogit.writeRef({ ...git, ...symbolic });
  await isogit.push({ ...git, headers: {}, ref, remoteRef: ref, force: true });
}

async function pushChange(
  change: PromotionChange,
  http: isogit.HttpClient,
  now: () => number,
): Promise<PushOutcome> {
  const url = cloneUrl(change.repository);
  if (typeof url !== 'string') return url;
  const { baseBranch } = change.repository;
  let step = `fetching branch ${baseBranch}`;
  try {
    const git = await openSession(change, http, url);
    const base = await fetchHead(git, `refs/heads/${baseBranch}`);
    if (base === undefined)
      return permanent('NotFound', `the repository has no base branch ${baseBranch}`);
    const { commit: baseCommit } = await isogit.readCommit({ ...git, oid: base });
    const edit = await editTree(git, baseCommit.tree, '', change);
    if (edit.markers === 0) {
      const marker = `{"$promotion": "${change.marker}"}`;
      return permanent('NoMarker', `no YAML file on ${baseBranch} carries the marker ${marker}`);
    }
    if (edit.files.length === 0) return { outcome: 'AlreadyAtRevision', base };
    step = `fetching branch ${change.branch}`;
    const branchRef = `refs/heads/${change.branch}`;
    const current = await fetchHead(git, branchRef, `${REMOTE_BASE}/${baseBranch}`);
    if (current !== undefined && (await holdsChange(git, current, base, edit.oid)))
      return { outcome: 'UpToDate', commit: current, base, files: edit.files };
    const commit = await writeCommit(git, change, base, edit.oid);
    step = `pushing branch ${change.branch}`;
    await forcePush(git, commit, change);
    return { outcome: 'Pushed', commit, base, files: edit.files };
  } catch (error) {
    const { kind } = change.repository;
    return { outcome: 'Failed', failure: gitFailure(error, kind, change.branch, step, now()) };
  }
}

/**
 * The Git side of the pull-request strategy. Each push works in its own in-memory repository,
 * dropped when it returns; it never throws: every failure comes back classified.
 */
export function gitPusher(options: GitPusherOptions = {}): PromotionPusher {
  const http = gitHttpClient(options);
  const now = options.now ?? Date.now;
  return {
    push: (change) =>
      pushChange(
        change,
        // A push with a deadline gets a transport that stops with it.
        change.signal === undefined ? http : gitHttpClient({ ...options, signal: change.signal }),
        now,
      ),
  };
}
