/**
 * Request accounting for one forge: every request that reaches the listener is counted once on
 * arrival, before authentication and fault injection, by method and route template, so a test
 * can assert "one pull-request creation, two branch pushes" whatever was answered.
 */

/** One counted request shape. */
export interface RequestRecord {
  /** 'api' for REST, 'git' for smart HTTP, 'admin' for the simulator's own endpoint. */
  scope: 'api' | 'git' | 'admin';
  method: string;
  /** Route template, e.g. 'GET /repos/{owner}/{repo}/pulls' or 'POST /{repo}.git/git-receive-pack'. */
  route: string;
}

/** Filter for `count`: every given field must match exactly. */
export type RequestFilter = Partial<RequestRecord>;

/** Aggregated counts since the last reset. */
export interface RequestSnapshot {
  total: number;
  byScope: Record<RequestRecord['scope'], number>;
  /** Keyed by route template (which starts with the method). */
  byRoute: Record<string, number>;
  entries: (RequestRecord & { count: number })[];
}

/** Counts requests by shape. */
export class RequestCounter {
  private readonly counts = new Map<string, { record: RequestRecord; count: number }>();

  /** Counts one request. */
  record(r: RequestRecord): void {
    const key = `${r.scope} ${r.route}`;
    const entry = this.counts.get(key);
    if (entry === undefined) this.counts.set(key, { record: { ...r }, count: 1 });
    else entry.count++;
  }

  /** How many requests matched `filter` (all when empty). */
  count(filter: RequestFilter = {}): number {
    let n = 0;
    for (const { record, count } of this.counts.values()) {
      const ok =
        (filter.scope === undefined || filter.scope === record.scope) &&
        (filter.method === undefined || filter.method === record.method) &&
        (filter.route === undefined || filter.route === record.route);
      if (ok) n += count;
    }
    return n;
  }

  /** Aggregated view of everything counted since the last reset. */
  snapshot(): RequestSnapshot {
    const byScope = { api: 0, git: 0, admin: 0 };
    const byRoute: Record<string, number> = {};
    const entries: (RequestRecord & { count: number })[] = [];
    let total = 0;
    for (const { record, count } of this.counts.values()) {
      total += count;
      byScope[record.scope] += count;
      byRoute[record.route] = (byRoute[record.route] ?? 0) + count;
      entries.push({ ...record, count });
    }
    return { total, byScope, byRoute, entries };
  }

  /** Forgets all counts. */
  reset(): void {
    this.counts.clear();
  }
}
