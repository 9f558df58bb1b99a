/**
 * The reconciler's metrics, on the gateway's registry: where the loaded Pipelines' environments
 * stand (their current decisions, by outcome and reason: the evaluator's fixed words, so the
 * labels stay bounded) and the promotion lead time (from the upstream first verified running a
 * revision to the promotion of that revision succeeding: soak, windows, approvals and the
 * strategy's own run included) and the promotions that succeeded per environment name.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { EnvironmentDecision } from '../evaluate/decisions.js';

/** Lead-time buckets in seconds: a minute to a week (soaks and approvals take hours or days). */
const LEAD_TIME_BUCKETS = [60, 300, 900, 1800, 3600, 7200, 14400, 43200, 86400, 259200, 604800];

/**
 * The most environment names the per-environment count keeps apart; later names are counted as
 * `other`. Names come from the Pipelines people write: the cap keeps the series bounded.
 */
export const MAX_ENVIRONMENT_LABELS = 32;
/** The label of every environment name past the cap. */
export const OTHER_ENVIRONMENTS = 'other';

/** What the reconciler reports through. */
export interface ReconcileMetrics {
  /** Records one successful promotion's lead time in seconds. */
  readonly observeLeadTime: (seconds: number) => void;
  /** Counts one promotion that succeeded into an environment of this name. */
  readonly countPromoted: (environment: string) => void;
}

/**
 * Registers the metrics on `registry`; `decisions` yields every loaded Pipeline's current
 * decisions at scrape time.
 */
export function reconcileMetrics(
  registry: Registry,
  decisions: () => Iterable<readonly EnvironmentDecision[]>,
): ReconcileMetrics {
  const registers = [registry];
  new Gauge({
    name: 'promotion_gateway_decisions',
    help: "Environments of the loaded Pipelines by their current decision's outcome and reason (e.g. Waiting, Soaking).",
    labelNames: ['outcome', 'reason'] as const,
    registers,
    collect() {
      this.reset();
      for (const [key, count] of countDecisions(decisions())) {
        const [outcome = '', reason = ''] = key.split(' ');
        this.set({ outcome, reason }, count);
      }
    },
  });
  const leadTime = new Histogram({
    name: 'promotion_gateway_promotion_lead_time_seconds',
    help: 'From the upstream environment first verified running a revision to its promotion succeeding, in seconds.',
    buckets: LEAD_TIME_BUCKETS,
    registers,
  });
  const promoted = new Counter({
    name: 'promotion_gateway_environment_promotions_total',
    help: `Promotions that succeeded, by environment name (the first ${String(MAX_ENVIRONMENT_LABELS)} names seen; later ones as "${OTHER_ENVIRONMENTS}").`,
    labelNames: ['environment'] as const,
    registers,
  });
  const names = new Set<string>();
  return {
    observeLeadTime: (seconds) => {
      leadTime.observe(seconds);
    },
    countPromoted: (environment) => {
      if (!names.has(environment) && names.size < MAX_ENVIRONMENT_LABELS) names.add(environment);
      promoted.inc({ environment: names.has(environment) ? environment : OTHER_ENVIRONMENTS });
    },
  };
}

/** Decisions counted by `outcome reason` (both single words). */
export function countDecisions(
  lists: Iterable<readonly EnvironmentDecision[]>,
): Map<string, number> {
  const counts = new Map<string, number>();
  for (const list of lists)
    for (const { outcome, reason } of list) {
      const key = `${outcome} ${reason}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  return counts;
}
