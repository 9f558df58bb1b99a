/**
 * The one writer of the PromotionAlert status subresource, as status-writer.ts is the
 * Pipeline's: a caller states its change as a pure function of the stored alert, and this
 * writer applies it with the stored resourceVersion as precondition; on a 409 it reads the
 * alert again and re-applies the change to what is stored now, under the same bounded
 * CONFLICT_POLICY. A change that leaves the status as stored is never written. Only the
 * replica holding the Lease delivers, but a replica that has just lost it may still be
 * finishing a write: the precondition is what keeps the two from overwriting each other.
 */
import type { Scheduler } from '../clock.js';
import { jsonEqual } from '../pipeline/json-equal.js';
import {
  alertName,
  asUncheckedAlert,
  type AlertStatus,
  type UncheckedAlert,
} from '../notify/alert-resource.js';
import type { AlertWriter } from './ports.js';
import { CONFLICT_POLICY, type ConflictPolicy, type WriteAttempt } from './status-writer.js';

/** What a change makes of the stored alert: a status to write, or no write at all. */
export type AlertChangeVerdict<V> = { write: AlertStatus; verdict: V } | { keep: V };

/** A pure change of the status: called with the stored alert, again after every 409. */
export type AlertStatusChange<V> = (stored: UncheckedAlert) => AlertChangeVerdict<V>;

/**
 * Written: the change landed; `alert` is the stored object after it. Kept: nothing was written
 * (the change said so, or it left the status as stored). Gone: the alert was deleted.
 * Contended: every attempt of the policy met a 409.
 */
export type AlertStatusWrite<V> =
  | { outcome: 'Written'; alert: UncheckedAlert; verdict: V }
  | { outcome: 'Kept'; alert: UncheckedAlert; verdict: V }
  | { outcome: 'Gone' }
  | { outcome: 'Contended'; attempts: number };

/** What the writer needs besides the port. */
export interface AlertStatusWriterOptions {
  scheduler: Pick<Scheduler, 'setTimer'>;
  random?: () => number;
  policy?: ConflictPolicy;
  /** Called once per attempt's result (metrics). */
  onAttempt?: (result: WriteAttempt) => void;
}

/** The one writer of PromotionAlert statuses; see the module comment. */
export class AlertStatusWriter {
  private readonly policy: ConflictPolicy;
  private readonly random: () => number;

  constructor(
    private readonly port: AlertWriter,
    private readonly options: AlertStatusWriterOptions,
  ) {
    this.policy = options.policy ?? CONFLICT_POLICY;
    this.random = options.random ?? Math.random;
  }

  /** A fresh GET of the alert from the API server (never a cache); undefined when gone. */
  async read(ref: { namespace: string; name: string }): Promise<UncheckedAlert | undefined> {
    const fresh = await this.port.getAlert(ref.namespace, ref.name);
    return fresh === undefined ? undefined : asStoredAlert(fresh);
  }

  /**
   * Applies `change` to `alert` (as last seen; its resourceVersion is the precondition) and to
   * every fresh read after a 409. Rejects only on API errors other than 409 and 404.
   */
  async apply<V>(
    alert: UncheckedAlert,
    change: AlertStatusChange<V>,
  ): Promise<AlertStatusWrite<V>> {
    let stored = alert;
    for (let attempt = 1; ; attempt++) {
      const verdict = change(stored);
      if ('keep' in verdict) return this.kept(stored, verdict.keep);
      if (jsonEqual(verdict.write, stored.status ?? {})) return this.kept(stored, verdict.verdict);
      const written = await this.put(stored, verdict.write);
      if (written === 'Gone') return { outcome: 'Gone' };
      if (written !== 'Conflict') {
        this.options.onAttempt?.('written');
        return { outcome: 'Written', alert: written, verdict: verdict.verdict };
      }
      this.options.onAttempt?.('conflict');
      if (attempt >= this.policy.maxAttempts) {
        this.options.onAttempt?.('contended');
        return { outcome: 'Contended', attempts: attempt };
      }
      await this.pause(attempt);
      const fresh = await this.read(alert.metadata);
      if (fresh === undefined) return { outcome: 'Gone' };
      stored = fresh;
    }
  }

  private kept<V>(alert: UncheckedAlert, verdict: V): AlertStatusWrite<V> {
    this.options.onAttempt?.('unchanged');
    return { outcome: 'Kept', alert, verdict };
  }

  /** One conditional PUT; a thrown error is Gone when a fresh GET finds no object. */
  private async put(
    stored: UncheckedAlert,
    status: AlertStatus,
  ): Promise<UncheckedAlert | 'Conflict' | 'Gone'> {
    const rv = stored.metadata.resourceVersion;
    if (rv === undefined || rv === '') {
      // Without one the write would be unconditional and could overwrite another replica's.
      throw new TypeError(
        `PromotionAlert ${alertName(stored)} has no resourceVersion; status writes need one as precondition`,
      );
    }
    try {
      const result = await this.port.replaceAlertStatus({ ...stored, status });
      return result.conflict ? 'Conflict' : asStoredAlert(result.value);
    } catch (err) {
      if (await this.isGone(stored)) return 'Gone';
      throw err;
    }
  }

  private async isGone(alert: UncheckedAlert): Promise<boolean> {
    try {
      return (await this.read(alert.metadata)) === undefined;
    } catch {
      return false;
    }
  }

  private pause(attempt: number): Promise<void> {
    if (attempt < 2) return Promise.resolve();
    const cap = Math.min(this.policy.maxDelayMs, this.policy.baseDelayMs * 2 ** (attempt - 2));
    const ms = Math.round(this.random() * cap);
    return new Promise((resolve) => this.options.scheduler.setTimer(ms, resolve));
  }
}

/** The API server's answer as a stored alert; anything else is a bug worth a throw. */
function asStoredAlert(object: unknown): UncheckedAlert {
  const alert = asUncheckedAlert(object);
  if (alert === undefined) throw new TypeError('expected a PromotionAlert from the API server');
  return alert;
}
