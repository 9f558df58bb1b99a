/**
 * Request accounting for one forge: every request that reaches the listener is counted once on
 * arrival, before authentication and fault injection, by method and route template, so a test
 * can assert "one pull-request creation, two branch pushes" whatever was answered.
 */
import { ShapeCounter } from 'sim-kit';

/** One counted request shape. */
export interface RequestRecord {
  /**
   * 'api' for REST, 'git' for smart HTTP, 'web' for the pages a person opens (a pull
   * request's), 'admin' for the simulator's own endpoint.
   */
  scope: 'api' | 'git' | 'web' | 'admin';
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

const sameOrAny = <V>(wanted: V | undefined, actual: V): boolean =>
  wanted === undefined || wanted === actual;

/** Counts requests by shape. */
export class RequestCounter {
  private readonly shapes = new ShapeCounter<RequestRecord>((r) => `${r.scope} ${r.route}`);

  /** Counts one request. */
  record(r: RequestRecord): void {
    this.shapes.record(r);
  }

  /** How many requests matched `filter` (all when empty). */
  count(filter: RequestFilter = {}): number {
    return this.shapes.count(
      (r) =>
        sameOrAny(filter.scope, r.scope) &&
        sameOrAny(filter.method, r.method) &&
        sameOrAny(filter.route, r.route),
    );
  }

  /** Aggregated view of everything counted since the last reset. */
  snapshot(): RequestSnapshot {
    return {
      total: this.shapes.count(),
      byScope: this.shapes.tally((r) => r.scope, { api: 0, git: 0, web: 0, admin: 0 }),
      byRoute: this.shapes.tally((r) => r.route),
      entries: this.shapes.entries(),
    };
  }

  /** Forgets all counts. */
  reset(): void {
    this.shapes.reset();
  }
}
