/**
 * The keys of weave's legacy webhook: each Pipeline's `hmac-key`, in the Secret its
 * `spec.promotion.strategy.secretRef` names.
 */
import type { PipelineId } from '../pipeline/id.js';
import type { Pipeline } from '../pipeline/types.js';

/** A Pipeline's legacy `hmac-key` as raw bytes; undefined when it has none. */
export type LegacyKeyResolver = (id: PipelineId) => Promise<Buffer | undefined>;

/** Reads one key of a Secret in the Pipeline's namespace; undefined when missing. */
export type SecretKeyReader = (
  namespace: string,
  name: string,
  key: string,
) => Promise<Buffer | undefined>;

/** The Secret a Pipeline names for its legacy key, when it is loaded and names one. */
export type LegacySecretRef = (id: PipelineId) => { namespace: string; name: string } | undefined;

/** Resolves a Pipeline's legacy key through the Secret its spec names. */
export function legacyKeyResolver(
  secretOf: LegacySecretRef,
  readSecretKey: SecretKeyReader,
): LegacyKeyResolver {
  return async (id) => {
    const secret = secretOf(id);
    return secret === undefined
      ? undefined
      : readSecretKey(secret.namespace, secret.name, 'hmac-key');
  };
}

/** The Secret a loaded Pipeline names in `spec.promotion.strategy.secretRef`, in its namespace. */
export function legacySecretFromSpec(
  get: (id: PipelineId) => Pipeline | undefined,
): LegacySecretRef {
  return (id) => {
    const pipeline = get(id);
    const name = pipeline?.spec.promotion?.strategy.secretRef?.name;
    return pipeline === undefined || name === undefined
      ? undefined
      : { namespace: pipeline.metadata.namespace, name };
  };
}
