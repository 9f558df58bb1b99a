/**
 * Fault injection for one forge: rate-limit answers (the next N matching requests, with the
 * forge's own headers), error answers (5xx, or any code), latency and hung requests. Faults match
 * by scope (REST API or Git over HTTP), method and counted route, so a test can say "the next
 * pull-request creation is rate-limited" and nothing else changes.
 */
import { FaultBook, type DelayStats } from 'sim-kit';

/** Which requests a fault applies to; omitted fields match everything. */
export interface FaultMatch {
  /** 'api' (REST), 'git' (smart HTTP) or 'all'. Rate limits default to 'api', others to 'all'. */
  scope?: 'api' | 'git' | 'all';
  /** Upper-case HTTP methods. */
  methods?: string[];
  /** Route templates as counted, e.g. 'POST /repos/{owner}/{repo}/pulls'. */
  routes?: string[];
}

// GitHub's primary limit is 403 with x-ratelimit-remaining: 0 and x-ratelimit-reset, its secondary
// limit 429 (or 403) with retry-after; GitLab answers 429 with Retry-After and RateLimit-*.
/** The next `count` matching requests are refused as rate-limited, with the forge's headers. */
export interface RateLimitFault extends FaultMatch {
  count: number;
  style?: 'primary' | 'secondary';
  /** Status of a GitHub secondary limit: 429 (default) or 403. */
  status?: 403 | 429;
  /** How long the forge asks the client to wait (reset time or retry-after). Default 60. */
  retryAfterSeconds?: number;
}

/** Matching requests are answered with `code` (the forge's body for it) instead of served. */
export interface ErrorFault extends FaultMatch {
  code: number;
  /** How many requests to fail; omitted = every matching request until cleared. */
  count?: number;
  /** Adds a `retry-after` header with this many seconds. */
  retryAfterSeconds?: number;
}

/** Waits `ms` before serving matching requests. */
export interface LatencyFault extends FaultMatch {
  ms: number;
}

/** Holds matching requests unanswered until the hang fault is cleared (or the forge closes). */
export type HangFault = FaultMatch;

/** The faults in force. Setting a kind replaces that kind. */
export interface FaultSpec {
  rateLimit?: RateLimitFault;
  errors?: ErrorFault[];
  latency?: LatencyFault;
  hang?: HangFault;
}

/** The kinds `clear` can remove. */
export type FaultKind = keyof FaultSpec;

/** What injection has done so far. */
export interface FaultStats extends DelayStats {
  rateLimited: number;
  injectedErrors: number;
}

/** The request a fault is matched against. */
export interface FaultTarget {
  scope: 'api' | 'git';
  method: string;
  route: string;
}

/** What to answer instead of serving the request. */
export type Injected =
  { kind: 'rateLimit'; fault: RateLimitFault } | { kind: 'error'; fault: ErrorFault };

function matches(m: FaultMatch, t: FaultTarget, defaultScope: 'api' | 'all'): boolean {
  const scope = m.scope ?? defaultScope;
  return (
    (scope === 'all' || scope === t.scope) &&
    (m.methods === undefined || m.methods.includes(t.method)) &&
    (m.routes === undefined || m.routes.includes(t.route))
  );
}

/** The fault switchboard of one forge (`forge.faults`). */
export class FaultController {
  private readonly book: FaultBook<FaultSpec>;
  private rateLimited = 0;
  private injectedErrors = 0;

  constructor(sleep: (ms: number) => Promise<void>) {
    this.book = new FaultBook(sleep);
  }

  /** Adds or replaces the given kinds of fault. */
  set(spec: FaultSpec): void {
    // A copy, since counted faults are used up in place and the caller may reuse its spec.
    this.book.set(structuredClone(spec));
  }

  /** Removes one kind of fault, or all; hung requests are released. */
  clear(kind?: FaultKind): void {
    this.book.clear(kind);
  }

  /** The faults in force (rate limits and counted errors show what is left of their count). */
  current(): FaultSpec {
    return this.book.current();
  }

  /** Counters of what has been injected so far. */
  stats(): FaultStats {
    const { rateLimited, injectedErrors } = this;
    return { rateLimited, injectedErrors, ...this.book.stats() };
  }

  /** Applies latency and hangs, then resolves to the answer to inject, if any. */
  async before(t: FaultTarget): Promise<Injected | undefined> {
    // Each kind is read when it applies: a fault set while a request waits still meets it.
    const latency = this.book.spec.latency;
    if (latency !== undefined && matches(latency, t, 'all')) await this.book.delay(latency.ms);
    const hang = this.book.spec.hang;
    if (hang !== undefined && matches(hang, t, 'all')) await this.book.hold();
    return this.rateLimit(t) ?? this.error(t);
  }

  /** Releases every hung request (the forge is closing). */
  release(): void {
    this.book.release();
  }

  private rateLimit(t: FaultTarget): Injected | undefined {
    const fault = this.book.spec.rateLimit;
    if (fault === undefined || fault.count <= 0 || !matches(fault, t, 'api')) return undefined;
    fault.count--;
    if (fault.count === 0) delete this.book.spec.rateLimit;
    this.rateLimited++;
    return { kind: 'rateLimit', fault };
  }

  private error(t: FaultTarget): Injected | undefined {
    const errors = this.book.spec.errors ?? [];
    const fault = errors.find((f) => (f.count ?? 1) > 0 && matches(f, t, 'all'));
    if (fault === undefined) return undefined;
    if (fault.count !== undefined) fault.count--;
    this.injectedErrors++;
    return { kind: 'error', fault };
  }
}
