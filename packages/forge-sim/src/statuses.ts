/**
 * Commit statuses (GitHub and GitLab) and check runs (GitHub) the forge keeps per commit, in the
 * forge's own words: GitHub statuses are error|failure|pending|success, check runs have a status
 * and a conclusion; GitLab statuses are a job's state (pending, running, success, failed...).
 * Every report is kept; "latest" means the newest per context / check-run name.
 */

/** One commit status. */
export interface StatusRecord {
  id: number;
  repoId: number;
  sha: string;
  /** GitHub's `context`, GitLab's `name`. */
  context: string;
  state: string;
  description: string | null;
  targetUrl: string | null;
  /** Who reported it (a forge user). */
  creator: string;
  createdAt: number;
  /** GitLab only: the branch or tag it refers to, whether it may fail, its coverage. */
  ref: string | null;
  allowFailure: boolean;
  coverage: number | null;
  startedAt: number | null;
  finishedAt: number | null;
}

/** One GitHub check run. */
export interface CheckRunRecord {
  id: number;
  repoId: number;
  sha: string;
  name: string;
  status: string;
  conclusion: string | null;
  detailsUrl: string | null;
  startedAt: number;
  completedAt: number | null;
}

/** What a status report says; the rest is filled in. */
export type StatusInput = Pick<StatusRecord, 'context' | 'state' | 'creator'> &
  Partial<Pick<StatusRecord, 'description' | 'targetUrl' | 'ref' | 'allowFailure' | 'coverage'>>;

/** What a check-run report says. */
export type CheckRunInput = Pick<CheckRunRecord, 'name' | 'status'> &
  Partial<Pick<CheckRunRecord, 'conclusion' | 'detailsUrl'>>;

/** GitLab states after which a job has finished. */
const FINISHED = new Set(['success', 'failed', 'canceled', 'skipped']);

/** Newest first, one per key. */
function latestBy<T extends { id: number }>(items: T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return [...items]
    .sort((a, b) => b.id - a.id)
    .filter((item) => {
      const k = key(item);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
}

/** The statuses and check runs of one forge. */
export class StatusStore {
  private nextId = 1;
  private readonly statuses: StatusRecord[] = [];
  private readonly runs: CheckRunRecord[] = [];

  constructor(private readonly now: () => number) {}

  /** Records a status of commit `sha` of repository `repoId`. */
  addStatus(repoId: number, sha: string, input: StatusInput): StatusRecord {
    const now = this.now();
    const record: StatusRecord = {
      id: this.nextId++,
      repoId,
      sha,
      description: null,
      targetUrl: null,
      ref: null,
      allowFailure: false,
      coverage: null,
      ...input,
      createdAt: now,
      startedAt: input.state === 'pending' || input.state === 'created' ? null : now,
      finishedAt: FINISHED.has(input.state) ? now : null,
    };
    this.statuses.push(record);
    return record;
  }

  /** The statuses of a commit, newest first; only the newest per context unless `all`. */
  statusesOf(repoId: number, sha: string, all = false): StatusRecord[] {
    const mine = this.statuses.filter((s) => s.repoId === repoId && s.sha === sha);
    // GitHub compares contexts case-insensitively.
    return all ? [...mine].reverse() : latestBy(mine, (s) => s.context.toLowerCase());
  }

  /** Records a check run of commit `sha`. */
  addCheckRun(repoId: number, sha: string, input: CheckRunInput): CheckRunRecord {
    const now = this.now();
    const record: CheckRunRecord = {
      id: this.nextId++,
      repoId,
      sha,
      conclusion: null,
      detailsUrl: null,
      ...input,
      startedAt: now,
      completedAt: input.status === 'completed' ? now : null,
    };
    this.runs.push(record);
    return record;
  }

  /** The check runs of a commit, newest first; only the newest per name unless `all`. */
  checkRunsOf(repoId: number, sha: string, all = false): CheckRunRecord[] {
    const mine = this.runs.filter((r) => r.repoId === repoId && r.sha === sha);
    return all ? [...mine].reverse() : latestBy(mine, (r) => r.name);
  }
}
