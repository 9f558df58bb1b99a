import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { SecretKeyReader } from '../auth/legacy-keys.js';
import { isNotFound } from './errors.js';
import type { KubeCalls } from './request-options.js';

/**
 * A SecretKeyReader on one cluster: one GET of the Secret per call; a missing Secret or key is
 * undefined, any other failure rejects (callers decide whether to keep what they knew).
 */
export function secretKeyReader(kubeConfig: KubeConfig, calls: KubeCalls): SecretKeyReader {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  return async (namespace, name, key) => {
    try {
      const secret = await core.readNamespacedSecret({ namespace, name }, calls.options());
      const encoded = secret.data?.[key];
      return encoded === undefined ? undefined : Buffer.from(encoded, 'base64');
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };
}
