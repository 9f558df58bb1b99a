import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { SecretKeyReader } from '../auth/legacy-keys.js';
import { classifyKubeError, isNotFound } from './errors.js';
import type { SecretObject, SecretReader } from './ports.js';
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

/**
 * A SecretReader on one cluster: one GET per call, every key decoded; a missing Secret is
 * `undefined`, any other failure a classified, secret-free ReadResult (never thrown).
 */
export function kubeSecretReader(kubeConfig: KubeConfig, calls: KubeCalls): SecretReader {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  return {
    async get(namespace, name) {
      try {
        const secret = await core.readNamespacedSecret({ namespace, name }, calls.options());
        const data: Record<string, Buffer> = {};
        for (const [key, encoded] of Object.entries(secret.data ?? {})) {
          data[key] = Buffer.from(encoded, 'base64');
        }
        const value: SecretObject = {
          resourceVersion: secret.metadata?.resourceVersion ?? '',
          data,
        };
        return { ok: true, value };
      } catch (err) {
        if (isNotFound(err)) return { ok: true, value: undefined };
        return { ok: false, ...classifyKubeError(err) };
      }
    },
  };
}
