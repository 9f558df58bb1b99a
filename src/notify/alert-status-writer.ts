/**
 * The one writer of the PromotionAlert status subresource, as kube/status-writer.ts is the
 * Pipeline's: a caller states its change as a pure function of the stored alert, and this
 * writer applies it with the stored resourceVersion as precondition; on a 409 it reads the
 * alert again and re-applies the change to what is stored now, under the same bounded
 * CONFLICT_POLICY. A change that leaves the status as stored is never written. Only the
 * replica holding the Lease delivers, but a replica that has just lost it may still be
 * finishing a write: the precondition is what keeps the two from overwriting each other.
 */
import { asUncheckedAlert, type AlertStatus, type UncheckedAlert } from './alert-resource.js';
import type { AlertWriter } from '../kube/ports.js';
import {
  writeConditionally,
  type ConditionalPort,
  type ConditionalWriterOptions,
} from '../kube/conditional-write.js';

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
export type AlertStatusWriterOptions = ConditionalWriterOptions;

/** The one writer of PromotionAlert statuses; see the module comment. */
export class AlertStatusWriter {
  private readonly conditional: ConditionalPort<UncheckedAlert, AlertStatus>;

  constructor(
    private readonly port: AlertWriter,
    private readonly options: AlertStatusWriterOptions,
  ) {
    this.conditional = {
      kind: 'PromotionAlert',
      read: (ref) => this.read(ref),
      replace: async (stored, status) => {
        const result = await this.port.replaceAlertStatus({ ...stored, status });
        return result.conflict ? result : { conflict: false, value: asStoredAlert(result.value) };
      },
    };
  }

  /** A fresh GET of the alert from the API server (never a cache); undefined when gone. */
  async read(ref: { namespace: string; name: string }): Promise<UncheckedAlert | undefined> {
    const fresh = await this.port.getAlert(ref.namespace, ref.name);
    return fresh === undefined ? undefined : asStoredAlert(fresh);
  }

  /**
   * Applies `change` to `alert` (as last seen; its resourceVersion is the precondition) and to
   * every fresh read after a 409 (src/kube/conditional-write.ts). Rejects only on API errors
   * other than 409 and 404.
   */
  async apply<V>(
    alert: UncheckedAlert,
    change: AlertStatusChange<V>,
  ): Promise<AlertStatusWrite<V>> {
    const result = await writeConditionally(this.conditional, this.options, alert, change);
    if (result.outcome === 'Written' || result.outcome === 'Kept') {
      const { object, ...rest } = result;
      return { ...rest, alert: object };
    }
    return result;
  }
}

/** The API server's answer as a stored alert; anything else is a bug worth a throw. */
function asStoredAlert(object: unknown): UncheckedAlert {
  const alert = asUncheckedAlert(object);
  if (alert === undefined) throw new TypeError('expected a PromotionAlert from the API server');
  return alert;
}
