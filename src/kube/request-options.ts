/**
 * How every Kubernetes call of one gateway is made: each bounded by a timeout, on pooled
 * keep-alive connections (agent-pool.ts), GETs retried once on a connection the server had
 * already closed (http-call.ts). One instance per gateway; rest.ts makes the calls.
 */
import { realScheduler, type Scheduler } from '../clock.js';
import type { AgentPool } from './agent-pool.js';
import type { CallLimits } from './http-call.js';

/** The timeout and connection pool of one gateway's Kubernetes calls. */
export class KubeCalls implements CallLimits {
  /** Calls abort after `timeoutMs`; connections come from `pool`; timers are `scheduler`'s. */
  constructor(
    readonly timeoutMs: number,
    readonly pool: AgentPool,
    readonly scheduler: Pick<Scheduler, 'setTimer'> = realScheduler,
  ) {}

  /** The same pool with a shorter timeout (a Lease renewal must give up by its deadline). */
  withTimeout(timeoutMs: number): KubeCalls {
    return new KubeCalls(Math.min(this.timeoutMs, timeoutMs), this.pool, this.scheduler);
  }
}
