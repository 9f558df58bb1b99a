/**
 * What a chaos run did and saw, as plain records in arrival order: every answer the gateways
 * gave the test, every delivery the receiver got, every rollout the test made, every approval
 * call, every kill and outage. The checks (checks.ts) read nothing else, so a failure names
 * what happened from these records alone.
 */

/** One answer of a gateway to a request of the test (a connection error is no answer). */
export interface Answer {
  at: number;
  kind: 'event' | 'approval' | 'read';
  replica: string;
  path: string;
  status: number;
  /** The error body's `code`, for 4xx and 5xx. */
  code?: string;
  /** The `Retry-After` header, when the answer had one. */
  retryAfter?: string;
}

/** One delivery of the webhook strategy to the receiver. */
export interface Delivery {
  at: number;
  pipeline: string;
  env: string;
  revision: string;
  webhookId: string;
  attempt: number;
  /** The HTTP status the receiver answered (401 for a bad signature; 0: dropped, it went down). */
  status: number;
  /** When the receiver was done with it (answered or dropped): it was in flight until then. */
  doneAt?: number;
  signatureOk: boolean;
}

/** A HelmRelease moved to `revision` by the test: in dev by the load, downstream by the receiver. */
export interface Rollout {
  at: number;
  pipeline: string;
  env: string;
  revision: string;
}

/** One approval call: sent, and answered (status) or not (error). */
export interface ApprovalCall {
  pipeline: string;
  revision: string;
  sentAt: number;
  answeredAt?: number;
  status?: number;
  code?: string;
  error?: string;
}

/** Something the chaos did (a kill, a restart, an outage), for the summary and diagnosis. */
export interface ChaosStep {
  at: number;
  what: string;
}

/** The run's records; `t0` is when the load started (times print relative to it). */
export class Journal {
  t0 = Date.now();
  readonly answers: Answer[] = [];
  readonly deliveries: Delivery[] = [];
  readonly rollouts: Rollout[] = [];
  readonly approvals: ApprovalCall[] = [];
  readonly chaos: ChaosStep[] = [];
  /** Requests the test could not get answered by any replica in time. */
  unanswered = 0;
  /** Connection errors to a replica (killed or restarting): retried on another one. */
  connectionErrors = 0;
  /** Replica processes that exited without being killed by the test (restarted). */
  readonly unexpectedExits: string[] = [];

  /** A time as `t+12.3s` from the start of the load. */
  t(at: number): string {
    return `t${at >= this.t0 ? '+' : '-'}${(Math.abs(at - this.t0) / 1000).toFixed(1)}s`;
  }

  /** Records a chaos step now. */
  step(what: string): void {
    this.chaos.push({ at: Date.now(), what });
  }

  /** The test's rollouts in `env`, by `pipeline revision` (the first of each kept). */
  rolloutsOf(env: string): Map<string, Rollout> {
    const out = new Map<string, Rollout>();
    for (const r of this.rollouts) {
      const key = `${r.pipeline} ${r.revision}`;
      if (r.env === env && !out.has(key)) out.set(key, r);
    }
    return out;
  }
}

/** `pipeline env` / `pipeline env revision` keys for grouping. */
export const keyOf = (...parts: string[]): string => parts.join(' ');
