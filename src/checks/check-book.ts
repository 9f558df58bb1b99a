/**
 * The external checks' results, read by the gateway itself: the evaluator's input for the checks
 * gate (resultsFor) and the reads it asks for (request). Results are cached per (check,
 * revision) for the check's stated time (Unknown ones for at most 30 s), at most one run is in
 * flight per (check, revision) however many Pipelines or replicas of a check wait on it, runs are
 * bounded in number, and a finished run re-checks every Pipeline that waited for it. An expired
 * result is still shown (and holds) until the run that replaces it ends, so status does not flap.
 */
import { CHECK_REASONS } from '../evaluate/checks-gate.js';

import type { CheckResult } from '../evaluate/decisions.js';
import type { Evaluation } from '../evaluate/decisions.js';
import type { GatewayLogger } from '../log.js';
import { pipelineIdOf, type PipelineId } from '../pipeline/id.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';
import { Limiter } from '../queue/limiter.js';
import { checkKey, resolveCheck, type CheckOutcome, type ResolvedCheck } from './resolve.js';
import type { CheckRunner } from './runner.js';

/** The outcomes that hold a revision pending, whose shadow checks are read meanwhile. */
const PENDING: ReadonlySet<string> = new Set(['Promote', 'Waiting', 'WaitingApproval']);

/** What the book needs; all injected so tests use a fake runner and clock. */
export interface CheckBookDeps {
  run: CheckRunner;
  now: () => number;
  /** Runs in flight at most, over all checks. */
  maxConcurrent: number;
  /** A result that Pipeline `id` waited for has arrived: re-check it. */
  onResult: (id: PipelineId) => void;
  logger: GatewayLogger;
}

/** How long an Unknown result holds before the check is read again, at most. */
export const UNKNOWN_RETRY_MS = 30_000;
/** Expired results are forgotten this long after they expired, unless asked for again. */
const RETENTION_MS = 3_600_000;
/** Revisions kept per check (the oldest expired one goes first). */
const MAX_REVISIONS = 8;
const SWEEP_INTERVAL_MS = 60_000;

interface Entry {
  result?: Omit<CheckResult, 'index' | 'revision'>;
  running?: Promise<void>;
  waiters: Set<PipelineId>;
}

/** The results of every check this replica has read, and the reads in flight. */
export class CheckBook {
  private readonly entries = new Map<string, Map<string, Entry>>();
  private readonly limiter: Limiter;
  private lastSweep = 0;

  constructor(private readonly deps: CheckBookDeps) {
    this.limiter = new Limiter(Math.max(1, deps.maxConcurrent));
  }

  /** The stored results of `pipeline`'s checks by environment; undefined when it has none. */
  resultsFor(pipeline: Pipeline): Record<string, CheckResult[]> | undefined {
    let out: Record<string, CheckResult[]> | undefined;
    const { namespace } = pipeline.metadata;
    for (const env of pipeline.spec.environments) {
      const checks = env.promotion?.checks ?? [];
      if (checks.length === 0) continue;
      const list: CheckResult[] = [];
      checks.forEach((check, index) => {
        const key = checkKey(namespace, resolveCheck(pipeline.spec, env.name, check));
        for (const [revision, entry] of this.entries.get(key) ?? []) {
          if (entry.result !== undefined) list.push({ index, revision, ...entry.result });
        }
      });
      (out ??= {})[env.name] = list;
    }
    return out;
  }

  /**
   * Starts the reads the checks gate waits for in `evaluation` of `pipeline`, those of a
   * promoted revision an automatic rollback verifies, and the shadow checks of a revision
   * pending otherwise: every such check whose result for that revision is missing or expired
   * and not being read already. Returns how many reads it started; each re-checks the Pipeline when it ends.
   */
  request(pipeline: Pipeline, evaluation: Evaluation): number {
    const now = this.deps.now();
    this.sweep(now);
    const id = pipelineIdOf(pipeline);
    const { namespace } = pipeline.metadata;
    let started = 0;
    for (const decision of evaluation.decisions) {
      // A promoted revision inside its automatic rollback window is verified by the same checks.
      const revision = decision.verifying?.revision ?? decision.revision;
      const held = CHECK_REASONS.has(decision.reason) || decision.verifying !== undefined;
      if (revision === undefined || !(held || PENDING.has(decision.outcome))) continue;
      const env = pipeline.spec.environments.find((e) => e.name === decision.environment);
      // A revision otherwise pending is read by its shadow checks only: what they would hold.
      const checks = (env?.promotion?.checks ?? []).filter((c) => held || c.mode === 'Shadow');
      for (const check of checks) {
        const resolved = resolveCheck(pipeline.spec, decision.environment, check);
        const entry = this.entryOf(checkKey(namespace, resolved), revision);
        const current = entry.result !== undefined && entry.result.expiresAt > now;
        if (entry.running === undefined && current) continue;
        entry.waiters.add(id);
        if (entry.running !== undefined) continue;
        this.start(entry, resolved, { namespace, revision, label: `${id}/${check.name}` });
        started += 1;
      }
    }
    return started;
  }

  /** Reads in flight or waiting for a slot. */
  get running(): number {
    let n = 0;
    for (const byRevision of this.entries.values())
      for (const entry of byRevision.values()) if (entry.running !== undefined) n += 1;
    return n;
  }

  /** Resolves once no read is in flight (tests). */
  async settled(): Promise<void> {
    for (;;) {
      const running = [...this.entries.values()].flatMap((m) =>
        [...m.values()].flatMap((e) => (e.running === undefined ? [] : [e.running])),
      );
      if (running.length === 0) return;
      await Promise.all(running);
    }
  }

  private start(
    entry: Entry,
    check: ResolvedCheck,
    at: { namespace: string; revision: string; label: string },
  ): void {
    entry.running = this.limiter
      .run(() => this.deps.run(check, at.namespace, at.revision))
      .catch((): CheckOutcome => ({ state: 'Unknown', message: 'the check could not be run' }))
      .then((outcome) => {
        const ttl =
          outcome.state === 'Unknown' ? Math.min(check.cacheMs, UNKNOWN_RETRY_MS) : check.cacheMs;
        if (entry.result?.state !== outcome.state || entry.result.message !== outcome.message) {
          const fields = { check: at.label, kind: check.kind, revision: at.revision, ...outcome };
          this.deps.logger.info(fields, 'external check result');
        }
        entry.result = { ...outcome, expiresAt: this.deps.now() + ttl };
      })
      .finally(() => {
        entry.running = undefined;
        const waiters = [...entry.waiters];
        entry.waiters.clear();
        for (const id of waiters) this.deps.onResult(id);
      });
  }

  private entryOf(key: string, revision: string): Entry {
    let byRevision = this.entries.get(key);
    if (byRevision === undefined) {
      byRevision = new Map();
      this.entries.set(key, byRevision);
    }
    let entry = byRevision.get(revision);
    if (entry === undefined) {
      entry = { waiters: new Set() };
      byRevision.set(revision, entry);
      if (byRevision.size > MAX_REVISIONS) dropOldest(byRevision);
    }
    return entry;
  }

  /** Forgets results long expired, at most once a minute. */
  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    for (const [key, byRevision] of this.entries) {
      for (const [revision, entry] of byRevision) {
        const expiredLongAgo = (entry.result?.expiresAt ?? now) + RETENTION_MS < now;
        if (entry.running === undefined && expiredLongAgo) byRevision.delete(revision);
      }
      if (byRevision.size === 0) this.entries.delete(key);
    }
  }
}

/** Drops the idle entry whose result expired first (never one being read). */
function dropOldest(byRevision: Map<string, Entry>): void {
  let oldest: [string, number] | undefined;
  for (const [revision, entry] of byRevision) {
    if (entry.running !== undefined || entry.result === undefined) continue;
    if (oldest === undefined || entry.result.expiresAt < oldest[1])
      oldest = [revision, entry.result.expiresAt];
  }
  if (oldest !== undefined) byRevision.delete(oldest[0]);
}
