import type { KubeConfig } from '@kubernetes/client-node';
import type { SecretKeyReader } from '../auth/legacy-keys.js';
import { classifyKubeError, isNotFound } from './errors.js';
import type { SecretObject, SecretReader } from './ports.js';
import type { KubeCalls } from './request-options.js';
import { SECRET } from './resources.js';
import { KubeRest, resourcePath } from './rest.js';

/** A core/v1 Secret as the API server sends it: each key's value base64-encoded. */
export interface WireSecret {
  metadata?: { resourceVersion?: string };
  data?: Record<string, string>;
}

/** One GET of a Secret; KubeApiError (rest.ts) as any call's. */
export async function readSecret(
  rest: KubeRest,
  namespace: string,
  name: string,
): Promise<WireSecret> {
  return (await rest.get(resourcePath(SECRET, namespace, name))) as WireSecret;
}

/**
 * A SecretKeyReader on one cluster: one GET of the Secret per call; a missing Secret or key is
 * undefined, any other failure rejects (callers decide whether to keep what they knew).
 */
export function secretKeyReader(kubeConfig: KubeConfig, calls: KubeCalls): SecretKeyReader {
  const rest = new KubeRest(kubeConfig, calls);
  return async (namespace, name, key) => {
    try {
      const secret = await readSecret(rest, namespace, name);
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
  const rest = new KubeRest(kubeConfig, calls);
  return {
    async get(namespace, name) {
      try {
        const secret = await readSecret(rest, namespace, name);
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
