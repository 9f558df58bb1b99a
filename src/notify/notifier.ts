/**
 * The delivery engine: on the Lease holder only, every tick, each PromotionAlert's facts are
 * derived from the Pipelines it selects (src/notify/facts.ts), planned against the outbox in
 * its status (alert-progress.ts), the due events sent (one in flight per stream, so a receiver
 * is never called concurrently for one pipeline and environment), and the outcome written to
 * the alert's status through its one writer. A new leader waits one delivery timeout before
 * its first send, so the previous leader's last attempt has ended. Nothing is kept in memory
 * that a restart needs: the Pipelines' status and the alerts' status are the whole state.
 */
import type { GatewayLogger } from '../log.js';
import type { Pipeline, PipelineHead } from '../pipeline/pipeline-resource.js';
import { alertTimeoutMs, type AlertCheck } from './alert-check.js';
import {
  planAlert,
  statusAfter,
  type AlertRound,
  type AttemptResult,
  type RetryPolicy,
} from './alert-progress.js';
import type { AlertStatus, PromotionAlert, UncheckedAlert } from './alert-resource.js';
import { keyOf, logResults, reportBacklog, reportWritten } from './round-report.js';
import { conditionOf, isGone, sameStatus, type Blocked } from './alert-conditions.js';
import { selects, wantsType, type SelectionPolicy } from './alert-selection.js';
import { FactsByVersion, type NotificationFact } from './facts.js';
import { outboxFacts } from './outbox-record.js';
import type { OutboxCatchUp } from './outbox-catch-up.js';
import type { NotificationEvent } from './notification-event.js';
import { TrainFactsByVersion, type TrainSelection } from './train-events.js';

export type { TrainSelection } from './train-events.js';

/** The alert's status as a change of what is stored: undefined keeps it. */
export type AlertStatusChange = (stored: UncheckedAlert) => AlertStatus | undefined;

/** A formatted request for one event, or why none can be made (a problem naming no secret). */
export type Prepared =
  | { ok: true; url: string; headers: Record<string, string>; body: string; timeoutMs: number }
  | { ok: false; problem: string };

/** The I/O the engine needs, each behind an interface of ours. */
export interface NotifierPorts {
  /** Every PromotionAlert, checked (a failed check carries its problem). */
  listAlerts(): Promise<readonly AlertCheck[]>;
  /** Reads the stored alert fresh (undefined: deleted). */
  readAlert(alert: UncheckedAlert): Promise<UncheckedAlert | undefined>;
  /**
   * Applies `change` through the one writer (re-applied on a conflict); true when the status
   * it computed last was written, false when nothing was (no change, or the write gave up).
   */
  applyStatus(alert: UncheckedAlert, change: AlertStatusChange): Promise<boolean>;
  /** Prepares a sender for one alert's round (its Secret read once), or a problem. */
  prepare(
    alert: PromotionAlert,
  ): Promise<
    | { ok: true; request: (event: NotificationEvent, now: number) => Prepared }
    | { ok: false; reason: string; problem: string }
  >;
  /** Sends one prepared request; never rejects. */
  send(request: Extract<Prepared, { ok: true }>): Promise<AttemptResult>;
}

/** What the engine needs besides its ports. */
export interface NotifierDeps {
  ports: NotifierPorts;
  /** The catalog's heads: each the same object until its Pipeline changes (facts are kept). */
  pipelines: () => readonly PipelineHead[];
  /** The Pipeline of a head pipelines() gave, whole; undefined once it is gone. */
  whole: (head: PipelineHead) => Pipeline | undefined;
  isLeader: () => boolean;
  clock: () => number;
  random: () => number;
  logger: GatewayLogger;
  settings: NotifierSettings;
  /** Counts each attempt and finished event by result (metrics). */
  onResult?: (alert: string, result: string) => void;
  /** Reports each alert's backlog and its oldest event's time (metrics). */
  onBacklog?: (alert: string, backlog: number, oldest: number | undefined) => void;
  /** Records what a selected Pipeline owes and its outbox lacks (outbox-catch-up.ts). */
  catchUp?: Pick<OutboxCatchUp, 'visit'>;
  /** The trains known (each the same object until it changes), for their events. */
  trains?: () => readonly TrainSelection[];
}

/** The engine's settings (config `notifications`). */
export interface NotifierSettings {
  retry: RetryPolicy;
  tickMs: number;
  /**
   * Whether a new leader waits, per alert, one delivery timeout before its first send (so the
   * previous leader's last attempt has ended): true under leader election.
   */
  handover: boolean;
  selection: SelectionPolicy;
}

/** Runs the rounds; see the module comment. */
export class Notifier {
  private timer: NodeJS.Timeout | undefined;
  private leaderSince: number | undefined;
  private listFailing = false;
  private readonly running = new Map<string, Promise<void>>();
  private readonly facts = new FactsByVersion(outboxFacts);
  private readonly trainFacts = new TrainFactsByVersion();

  constructor(private readonly deps: NotifierDeps) {}

  /** Starts ticking; the first tick comes after one interval. */
  start(): void {
    this.timer ??= setInterval(() => void this.tick(), this.deps.settings.tickMs);
    this.timer.unref();
  }

  /** Stops ticking and waits for the rounds in flight (their outcomes are written). */
  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await Promise.allSettled([...this.running.values()]);
  }

  /** One tick, then every round in flight to its end (tests and the demo). Never rejects. */
  async tickAndWait(): Promise<void> {
    await this.tick();
    await Promise.allSettled([...this.running.values()]);
  }

  /** One tick: a round for every alert whose previous round has ended. Never rejects. */
  async tick(): Promise<void> {
    const now = this.deps.clock();
    if (!this.deps.isLeader()) {
      this.leaderSince = undefined;
      return;
    }
    this.leaderSince ??= now;
    let checks: readonly AlertCheck[];
    try {
      checks = await this.deps.ports.listAlerts();
    } catch (error) {
      // Once per outage, not once per tick: the API being down is said elsewhere too.
      if (!this.listFailing) {
        const reason = error instanceof Error ? error.message : 'unknown';
        this.deps.logger.warn({ reason }, 'notifications: the PromotionAlerts could not be listed');
      }
      this.listFailing = true;
      return;
    }
    if (this.listFailing)
      this.deps.logger.info('notifications: the PromotionAlerts are listed again');
    this.listFailing = false;
    this.catchUp(checks);
    for (const check of checks) {
      const key = keyOf(check.alert);
      if (this.running.has(key)) continue;
      const round = this.round(check).catch(() => {
        this.deps.logger.warn({ alert: key }, 'notifications: a round failed; the next retries');
      });
      this.running.set(key, round);
      void round.finally(() => this.running.delete(key));
    }
  }

  /** Each Pipeline a usable alert selects gets its outbox caught up (once per version). */
  private catchUp(checks: readonly AlertCheck[]): void {
    const { catchUp } = this.deps;
    if (catchUp === undefined) return;
    const alerts = checks.filter((c) => c.ok).map((c) => c.alert);
    if (alerts.length === 0) return;
    const policy = this.deps.settings.selection;
    for (const head of this.deps.pipelines()) {
      if (alerts.some((alert) => selects(alert, head, policy)))
        void catchUp.visit(head, this.deps.whole);
    }
  }

  private async round(check: AlertCheck): Promise<void> {
    if (!check.ok) return this.holdWith(check.alert, 'InvalidSpec', check.problem);
    const alert = check.alert;
    if (alert.spec.suspend === true)
      return this.holdWith(alert, 'Suspended', 'The alert is suspended');
    if (isGone(alert) || this.handingOver(alert)) return;
    const facts = this.factsFor(alert);
    const now = this.deps.clock();
    const listed = planAlert(alert, facts, now, this.deps.settings.retry);
    if (!this.worthALook(alert, listed, now)) {
      // Nothing to send or record: the gauges still say what the stored status says.
      reportBacklog(this.deps, alert, alert.status);
      return;
    }
    // The list may lag our own last write: decide on the stored alert, never a cached one.
    const stored = await this.deps.ports.readAlert(alert);
    if (stored === undefined) return;
    const fresh = { ...alert, metadata: stored.metadata, status: stored.status } as PromotionAlert;
    const round = planAlert(fresh, facts, now, this.deps.settings.retry);
    const { results, blocked } = await this.deliver(fresh, round);
    // What the change computed last: the status written, when the write lands.
    let computed: { before: AlertStatus | undefined; after: AlertStatus } | undefined;
    const change: AlertStatusChange = (current) => {
      const latest = {
        ...fresh,
        metadata: current.metadata,
        status: current.status,
      } as PromotionAlert;
      const at = this.deps.clock();
      const replanned = planAlert(latest, facts, at, this.deps.settings.retry);
      const after = statusAfter({
        alert: latest,
        round: replanned,
        results,
        blocked,
        now: at,
        retry: this.deps.settings.retry,
        random: this.deps.random,
      });
      computed = { before: current.status, after };
      return after;
    };
    const written = await this.deps.ports.applyStatus(fresh, change);
    // The metrics count what the written status counts, nothing else: the two always agree.
    if (written && computed !== undefined)
      reportWritten(this.deps, fresh, computed.before, computed.after);
    else reportBacklog(this.deps, fresh, fresh.status);
    logResults(this.deps.logger, fresh, results);
  }

  /** Whether this replica leads for less than the alert's delivery timeout. */
  private handingOver(alert: PromotionAlert): boolean {
    if (!this.deps.settings.handover || this.leaderSince === undefined) return false;
    return this.deps.clock() - this.leaderSince < alertTimeoutMs(alert.spec);
  }

  /** Whether the round sends something or changes the status (else no read, no write). */
  private worthALook(alert: PromotionAlert, round: AlertRound, now: number): boolean {
    if (round.due.length > 0) return true;
    const next = statusAfter({
      alert,
      round,
      results: new Map(),
      now,
      retry: this.deps.settings.retry,
      random: this.deps.random,
    });
    return !sameStatus(alert.status, next);
  }

  private async deliver(
    alert: PromotionAlert,
    round: AlertRound,
  ): Promise<{ results: Map<string, AttemptResult>; blocked?: Blocked }> {
    const results = new Map<string, AttemptResult>();
    if (round.due.length === 0 || !this.deps.isLeader()) return { results };
    const prepared = await this.deps.ports.prepare(alert);
    // Nothing can be sent: the status says why (Ready=False, steadily), nothing is attempted.
    if (!prepared.ok)
      return { results, blocked: { reason: prepared.reason, message: prepared.problem } };
    await Promise.all(
      round.due.map(async ({ id, fact }) => {
        const { at: _a, ...rest } = fact;
        // Leadership may have gone while the Secret was read: a former leader starts nothing.
        if (!this.deps.isLeader()) return;
        const request = prepared.request({ id, ...rest }, this.deps.clock());
        const result: AttemptResult = request.ok
          ? await this.deps.ports.send(request)
          : { kind: 'Failed', detail: request.problem };
        results.set(id, result);
      }),
    );
    return { results };
  }

  /** Ready=False with `reason` (nothing is sent), written only when it says something new. */
  private async holdWith(alert: UncheckedAlert, reason: string, message: string): Promise<void> {
    const stored = alert.status?.conditions?.find((c) => c.type === 'Ready');
    if (
      stored?.reason === reason &&
      stored.message === message &&
      stored.observedGeneration === alert.metadata.generation
    )
      return;
    await this.deps.ports.applyStatus(alert, (current) => {
      const condition = conditionOf(
        current,
        { status: 'False', reason, message },
        this.deps.clock(),
      );
      return { ...current.status, conditions: [condition] };
    });
  }

  private factsFor(alert: PromotionAlert): NotificationFact[] {
    const policy = this.deps.settings.selection;
    const facts: NotificationFact[] = [];
    for (const head of this.deps.pipelines()) {
      if (!selects(alert, head, policy)) continue;
      const all = this.facts.of(head, this.deps.whole);
      facts.push(...all.filter((f) => wantsType(alert, f.type)));
    }
    const trains = this.trainFacts.selectedBy(alert, this.deps.trains?.() ?? [], policy);
    facts.push(...trains.filter((f) => wantsType(alert, f.type)));
    return facts;
  }
}
