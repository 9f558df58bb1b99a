/**
 * What the operator sees of a refused credential: the caller gets the one uniform 401, while
 * the log gets a `request refused` line with the reason (src/auth/refusal.ts) and the metric
 * `promotion_gateway_refusals_total{door,reason}` counts every refusal. Lines are rate-limited
 * per source (client IP and route): at most one a minute, the next one telling how many were
 * left out. The limiter remembers a bounded number of sources, so a flood from many addresses
 * costs neither unbounded memory nor unbounded log volume.
 */
import type { FastifyRequest } from 'fastify';
import type { Refusal } from '../auth/refusal.js';
import type { GatewayMetrics } from '../metrics.js';

/** The authenticated routes, as the refusals metric's `door` label names them. */
export type Door =
  | 'flux-event'
  | 'legacy-webhook'
  | 'pipelines-api'
  | 'approval'
  | 'ci-promotion'
  | 'legacy-approval'
  | 'halt'
  | 'rollback';

/** How often one source may log a line, and how many sources are remembered. */
export interface RefusalLimits {
  windowMs: number;
  maxSources: number;
}

/** One minute per source; 256 sources (a few KiB of memory) at most. */
export const DEFAULT_REFUSAL_LIMITS: RefusalLimits = { windowMs: 60_000, maxSources: 256 };

interface SourceState {
  loggedAt: number;
  suppressed: number;
}

/** What admit() decided: log a line (with the count left out before it), or not. */
export type Admission = { log: true; suppressed: number; overflow: boolean } | { log: false };

/**
 * Decides which refusals get a log line. A source logs at most one line per window; sources
 * beyond `maxSources` within a window share one overflow slot, limited like a single source.
 */
export class RefusalLimiter {
  /** By source, in the order of their last line (a Map keeps insertion order). */
  private readonly sources = new Map<string, SourceState>();
  private overflow: SourceState | undefined;

  constructor(
    private readonly now: () => number,
    private readonly limits: RefusalLimits = DEFAULT_REFUSAL_LIMITS,
  ) {}

  /** Sources remembered now (never more than `maxSources`). */
  get size(): number {
    return this.sources.size;
  }

  /** Whether a refusal from `source` gets a line now. */
  admit(source: string): Admission {
    const now = this.now();
    const state = this.sources.get(source);
    if (state !== undefined) {
      if (this.fresh(state, now)) return this.suppress(state);
      // Moved to the end: the map stays ordered by the time of each source's last line.
      this.sources.delete(source);
    } else if (!this.makeRoom(now)) {
      return this.admitOverflow(now);
    }
    this.sources.set(source, { loggedAt: now, suppressed: 0 });
    return { log: true, suppressed: state?.suppressed ?? 0, overflow: false };
  }

  private fresh(state: SourceState, now: number): boolean {
    return now - state.loggedAt < this.limits.windowMs;
  }

  private suppress(state: SourceState): Admission {
    state.suppressed++;
    return { log: false };
  }

  /** Forgets sources whose window is over, oldest first; true when there is room for one more. */
  private makeRoom(now: number): boolean {
    if (this.sources.size < this.limits.maxSources) return true;
    for (const [source, state] of this.sources) {
      if (this.fresh(state, now)) break;
      this.sources.delete(source);
    }
    return this.sources.size < this.limits.maxSources;
  }

  private admitOverflow(now: number): Admission {
    const state = this.overflow;
    if (state !== undefined && this.fresh(state, now)) return this.suppress(state);
    this.overflow = { loggedAt: now, suppressed: 0 };
    return { log: true, suppressed: state?.suppressed ?? 0, overflow: true };
  }
}

/** Reports one refused request: counts it, and logs it unless its source logged lately. */
export type RefusalReporter = (request: FastifyRequest, door: Door, refusal: Refusal) => void;

/** The reporter over `metrics` and a limiter on `now`. */
export function refusalReporter(
  metrics: Pick<GatewayMetrics, 'refusals'>,
  now: () => number,
  limits: RefusalLimits = DEFAULT_REFUSAL_LIMITS,
): RefusalReporter {
  const limiter = new RefusalLimiter(now, limits);
  return (request, door, first) => {
    // The costlier diagnostic runs here, past the rate limiter, after the real check failed.
    const refusal = first.diagnose?.() ?? first;
    const { reason } = refusal;
    metrics.refusals.inc({ door, reason });
    const route = request.routeOptions.url ?? '_unmatched';
    const admission = limiter.admit(`${request.ip} ${route}`);
    if (!admission.log) return;
    const fields = {
      ...refusal.facts,
      door,
      route,
      ip: request.ip,
      reason,
      ...(admission.suppressed > 0 ? { suppressed: admission.suppressed } : {}),
      ...(admission.overflow ? { manySources: true } : {}),
    };
    request.log.warn(fields, 'request refused');
  };
}
