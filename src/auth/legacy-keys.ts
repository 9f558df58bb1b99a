/**
 * The keys of weave's legacy webhook: each Pipeline's `hmac-key`, in the Secret its
 * `spec.promotion.strategy.secretRef` names. They are read ahead of any request (when a
 * Pipeline is loaded or changes, and at every resync) and served from memory, so a request,
 * signed or not, never causes a Kubernetes read: a stranger can neither load the API server nor
 * tell from the answer or its timing which Pipelines exist.
 */
import type { PipelineId } from '../pipeline/id.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';

/** A Pipeline's legacy `hmac-key` as raw bytes; undefined when it has none (or none is known). */
export type LegacyKeyResolver = (id: PipelineId) => Buffer | undefined;

/** Reads one key of a Secret; undefined when the Secret or the key is missing. */
export type SecretKeyReader = (
  namespace: string,
  name: string,
  key: string,
) => Promise<Buffer | undefined>;

/** The Secret a Pipeline names for its legacy key, in its own namespace. */
export function legacySecretOf(
  pipeline: Pipeline,
): { namespace: string; name: string } | undefined {
  const name = pipeline.spec.promotion?.strategy.secretRef?.name;
  return name === undefined ? undefined : { namespace: pipeline.metadata.namespace, name };
}

/** Legacy keys by Pipeline, read ahead and served from memory. */
export class LegacyKeyStore {
  /** Key bytes by `namespace/secret`; an entry holding undefined is a known absence. */
  private readonly secrets = new Map<string, Buffer | undefined>();
  private readonly secretOf = new Map<PipelineId, string>();
  /** Reads in flight by `namespace/secret`: concurrent refreshes of one Secret share one read. */
  private readonly inFlight = new Map<string, Promise<void>>();

  /** `read` fails (rejects) on anything but a found or missing Secret. */
  constructor(private readonly read: SecretKeyReader) {}

  /** The key of `id`'s Secret, from memory only. */
  keyFor(id: PipelineId): Buffer | undefined {
    const secret = this.secretOf.get(id);
    return secret === undefined ? undefined : this.secrets.get(secret);
  }

  /** Forgets a Pipeline (deleted, or no longer naming a Secret). */
  forget(id: PipelineId): void {
    this.secretOf.delete(id);
  }

  /**
   * Notes which Secret `pipeline` names and reads it unless that Secret is already known for it.
   * A failed read keeps the last key known (a Secret unreadable for a moment must not lock
   * callers out); resolves once read.
   */
  async track(id: PipelineId, pipeline: Pipeline): Promise<void> {
    const ref = legacySecretOf(pipeline);
    if (ref === undefined) {
      this.forget(id);
      return;
    }
    const secret = `${ref.namespace}/${ref.name}`;
    const known = this.secretOf.get(id) === secret && this.secrets.has(secret);
    this.secretOf.set(id, secret);
    // Every status write comes back as a watch update: only a new or changed reference, or a
    // Secret never read successfully, is read now; the resync refreshes the rest.
    if (!known) await this.load(secret, ref.namespace, ref.name);
  }

  /**
   * Re-reads every tracked Secret once (the resync calls this). Each read starts after this
   * call: a read already in flight began earlier (maybe while the API server was failing), so
   * it is waited for, then followed by a fresh one.
   */
  async refresh(): Promise<void> {
    const secrets = new Set(this.secretOf.values());
    for (const known of [...this.secrets.keys()])
      if (!secrets.has(known)) this.secrets.delete(known);
    await Promise.all(
      [...secrets].map((secret) => {
        const [namespace = '', name = ''] = secret.split('/');
        return this.load(secret, namespace, name, true);
      }),
    );
  }

  /**
   * Reads `secret` into memory. Concurrent loads share one read; with `fresh`, a read in flight
   * is followed by a new one that the later loads share in turn.
   */
  private load(secret: string, namespace: string, name: string, fresh = false): Promise<void> {
    const current = this.inFlight.get(secret);
    if (current !== undefined && !fresh) return current;
    const start = async (): Promise<void> => {
      try {
        this.secrets.set(secret, await this.read(namespace, name, 'hmac-key'));
      } catch {
        // Keep the last key known: a Secret unreadable for a moment must not lock callers out.
      }
    };
    const pending = (current === undefined ? start() : current.then(start)).finally(() => {
      if (this.inFlight.get(secret) === pending) this.inFlight.delete(secret);
    });
    this.inFlight.set(secret, pending);
    return pending;
  }
}
