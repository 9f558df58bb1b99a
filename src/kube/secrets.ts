import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { isNotFound } from './errors.js';
import { timeoutOptions } from './request-options.js';

/** Reads one key of a Secret as raw bytes; undefined when the Secret or key is missing. */
export type SecretKeyReader = (
  namespace: string,
  name: string,
  key: string,
) => Promise<Buffer | undefined>;

/**
 * A SecretKeyReader on one cluster that caches answers for `ttlMs`, so a flood of signed-looking
 * requests cannot turn into a flood of Secret reads.
 */
export function cachedSecretKeyReader(
  kubeConfig: KubeConfig,
  timeoutMs: number,
  ttlMs: number,
  now: () => number,
): SecretKeyReader {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const cache = new Map<string, { value: Buffer | undefined; at: number }>();
  return async (namespace, name, key) => {
    const id = `${namespace}/${name}/${key}`;
    const hit = cache.get(id);
    if (hit !== undefined && now() - hit.at < ttlMs) return hit.value;
    let value: Buffer | undefined;
    try {
      const secret = await core.readNamespacedSecret(
        { namespace, name },
        timeoutOptions(timeoutMs),
      );
      const encoded = secret.data?.[key];
      value = encoded === undefined ? undefined : Buffer.from(encoded, 'base64');
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    cache.set(id, { value, at: now() });
    return value;
  };
}
