import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { SecretKeyReader } from '../auth/legacy-keys.js';
import { isNotFound } from './errors.js';
import type { KubeCalls } from './request-options.js';

/**
 * A SecretKeyReader on one cluster that caches answers for `ttlMs`, so a flood of signed-looking
 * requests cannot turn into a flood of Secret reads.
 */
export function cachedSecretKeyReader(
  kubeConfig: KubeConfig,
  calls: KubeCalls,
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
      const secret = await core.readNamespacedSecret({ namespace, name }, calls.options());
      const encoded = secret.data?.[key];
      value = encoded === undefined ? undefined : Buffer.from(encoded, 'base64');
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    cache.set(id, { value, at: now() });
    return value;
  };
}
