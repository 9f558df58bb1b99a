/**
 * What GitHub and GitLab say about a commit's checks, read as the forges document it: GitHub's
 * combined status (`GET /repos/{o}/{r}/commits/{ref}/status`) and check runs (`.../check-runs`),
 * GitLab's commit statuses (`GET /projects/{id}/repository/commits/{sha}/statuses`, after
 * `.../commits/{ref}` resolves a tag or branch to its sha). Each report is Passed, Failed or
 * Pending; the verdict over the wanted contexts is the worst of them.
 */
import type { ForgeFailure } from '../forge/forge-answers.js';
import type { ForgeCall, ForgeRequest } from '../forge/forge-http.js';
import { malformed, record } from '../forge/forge-http.js';
import { clip } from '../text/text.js';
import { isFullSha } from '../outbound/commit-ref.js';
import type { CheckOutcome } from './resolve.js';

/** One status or check run of the commit. */
export interface Report {
  /** GitHub's status context or check-run name, GitLab's status name. */
  name: string;
  state: 'Passed' | 'Failed' | 'Pending';
  /** The forge's word for it (`failure`, `timed_out`, `canceled`...). */
  word: string;
}

/** Every report of the commit; `truncated` when the forge holds more than one page of them. */
export interface Reports {
  reports: Report[];
  truncated: boolean;
}

/** How one forge is asked. */
export interface StatusDialect {
  read(call: ForgeCall, ref: string, shown: string): Promise<Reports | ForgeFailure>;
}

const PAGE = 100;

/** GitHub's dialect for `owner/repo`. */
export function githubStatuses(owner: string, repo: string): StatusDialect {
  const base = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/commits`;
  return {
    read: async (call, ref, shown) => {
      // A ref may have several segments (`tags/v1`, a branch with slashes): encode each.
      const path = `${base}/${ref.split('/').map(encodeURIComponent).join('/')}`;
      const query = { per_page: String(PAGE) };
      const statusCall: ForgeRequest = {
        method: 'GET',
        path: `${path}/status`,
        query,
        what: `reading the commit statuses of ${shown}`,
      };
      const runsCall: ForgeRequest = {
        method: 'GET',
        path: `${path}/check-runs`,
        query,
        what: `reading the check runs of ${shown}`,
      };
      const [status, runs] = await Promise.all([call(statusCall), call(runsCall)]);
      if (!status.ok) return status.failure;
      if (!runs.ok) return runs.failure;
      const statuses = githubCombined(status.json);
      if (statuses === undefined) return malformed('github', statusCall.what);
      const checkRuns = githubRuns(runs.json);
      if (checkRuns === undefined) return malformed('github', runsCall.what);
      return {
        reports: [...statuses.reports, ...checkRuns.reports],
        truncated: statuses.truncated || checkRuns.truncated,
      };
    },
  };
}

function githubCombined(json: unknown): Reports | undefined {
  const body = record(json);
  if (body === undefined || !Array.isArray(body.statuses)) return undefined;
  const reports: Report[] = [];
  for (const item of body.statuses as unknown[]) {
    const s = record(item);
    if (typeof s?.context !== 'string' || typeof s.state !== 'string') return undefined;
    const state = s.state === 'success' ? 'Passed' : s.state === 'pending' ? 'Pending' : 'Failed';
    reports.push({ name: s.context, state, word: s.state });
  }
  const total = typeof body.total_count === 'number' ? body.total_count : reports.length;
  return { reports, truncated: total > reports.length };
}

/** Check-run conclusions that pass, as GitHub's required checks count them (not `skipped`). */
const PASSING_CONCLUSIONS = new Set(['success', 'neutral']);

function githubRuns(json: unknown): Reports | undefined {
  const body = record(json);
  if (body === undefined || !Array.isArray(body.check_runs)) return undefined;
  const reports: Report[] = [];
  for (const item of body.check_runs as unknown[]) {
    const run = record(item);
    if (typeof run?.name !== 'string' || typeof run.status !== 'string') return undefined;
    const conclusion = typeof run.conclusion === 'string' ? run.conclusion : undefined;
    if (run.status !== 'completed' || conclusion === undefined) {
      reports.push({ name: run.name, state: 'Pending', word: run.status });
      continue;
    }
    const state = PASSING_CONCLUSIONS.has(conclusion) ? 'Passed' : 'Failed';
    reports.push({ name: run.name, state, word: conclusion });
  }
  const total = typeof body.total_count === 'number' ? body.total_count : reports.length;
  return { reports, truncated: total > reports.length };
}

/** GitLab's dialect for the project at `projectPath`. */
export function gitlabStatuses(projectPath: string): StatusDialect {
  const project = `/projects/${encodeURIComponent(projectPath)}/repository/commits`;
  return {
    read: async (call, ref, shown) => {
      let sha = ref;
      if (!isFullSha(ref)) {
        const what = `finding the commit of ${shown}`;
        const commit = await call({
          method: 'GET',
          path: `${project}/${encodeURIComponent(ref)}`,
          what,
        });
        if (!commit.ok) return commit.failure;
        const id = record(commit.json)?.id;
        if (typeof id !== 'string' || !isFullSha(id)) return malformed('gitlab', what);
        sha = id;
      }
      const what = `reading the commit statuses of ${shown}`;
      const query = { per_page: String(PAGE) };
      const answer = await call({ method: 'GET', path: `${project}/${sha}/statuses`, query, what });
      if (!answer.ok) return answer.failure;
      const reports = gitlabReports(answer.json);
      return reports ?? malformed('gitlab', what);
    },
  };
}

/** GitLab job states that are still on their way. */
const GITLAB_PENDING = new Set([
  'created',
  'waiting_for_resource',
  'preparing',
  'pending',
  'running',
  'scheduled',
  'manual',
  'waiting_for_callback',
]);

function gitlabReports(json: unknown): Reports | undefined {
  if (!Array.isArray(json)) return undefined;
  const reports: Report[] = [];
  for (const item of json as unknown[]) {
    const s = record(item);
    if (typeof s?.name !== 'string' || typeof s.status !== 'string') return undefined;
    reports.push({
      name: s.name,
      state: gitlabState(s.status, s.allow_failure === true),
      word: s.status,
    });
  }
  // GitLab pages by headers the client does not keep: a full page may not be all of them.
  return { reports, truncated: reports.length >= PAGE };
}

function gitlabState(status: string, allowFailure: boolean): Report['state'] {
  if (status === 'success') return 'Passed';
  if (GITLAB_PENDING.has(status) && !(allowFailure && status === 'manual')) return 'Pending';
  // A job allowed to fail cannot block its pipeline, so it does not block a promotion either.
  return allowFailure ? 'Passed' : 'Failed';
}

/**
 * The verdict over `contexts` (case-insensitive, as GitHub compares contexts), or over every
 * report when none are named. A named context not reported yet is Pending; one not found in a
 * truncated answer, or any truncated answer when none are named, is Unknown.
 */
export function verdict(found: Reports, contexts: readonly string[], at: string): CheckOutcome {
  const wanted =
    contexts.length === 0
      ? [...new Set(found.reports.map((r) => r.name))].sort()
      : [...new Set(contexts)];
  if (contexts.length === 0 && found.truncated)
    return unknown(`more than ${String(PAGE)} statuses at ${at}: name the contexts to wait for`);
  if (wanted.length === 0) return { state: 'Pending', message: `nothing reported yet at ${at}` };
  const standing = wanted.map((name) => standingOf(name, found));
  const missing = standing.find((s) => s.report === undefined && found.truncated);
  if (missing !== undefined)
    return unknown(`${missing.name} is not among the first ${String(PAGE)} statuses at ${at}`);
  const failed = standing.filter((s) => s.report?.state === 'Failed');
  if (failed.length > 0) return { state: 'Failed', message: `${list(failed.map(said))} at ${at}` };
  const pending = standing.filter((s) => s.report?.state !== 'Passed');
  if (pending.length > 0)
    return { state: 'Pending', message: `${list(pending.map(said))} at ${at}` };
  return { state: 'Passed', message: `${list(standing.map(said))} at ${at}` };
}

interface Standing {
  name: string;
  report?: Report;
}

/** The worst report named `name` (a status and a check run may share a name). */
function standingOf(name: string, found: Reports): Standing {
  const rank = { Failed: 0, Pending: 1, Passed: 2 } as const;
  let worst: Report | undefined;
  for (const r of found.reports) {
    if (r.name.toLowerCase() !== name.toLowerCase()) continue;
    if (worst === undefined || rank[r.state] < rank[worst.state]) worst = r;
  }
  return worst === undefined ? { name } : { name, report: worst };
}

function said(s: Standing): string {
  const name = clip(s.name, 80);
  return s.report === undefined ? `${name} not reported yet` : `${name} ${clip(s.report.word, 40)}`;
}

/** At most 5 items, then how many more. */
function list(items: readonly string[]): string {
  const shown = items.slice(0, 5).join(', ');
  return items.length > 5 ? `${shown} and ${String(items.length - 5)} more` : shown;
}

function unknown(message: string): CheckOutcome {
  return { state: 'Unknown', message };
}
