import { KubeConfig } from '@kubernetes/client-node';

/** A kubeconfig extracted from a Secret, or why it cannot be used. */
export type KubeconfigResult =
  { ok: true; kubeConfig: KubeConfig } | { ok: false; message: string };

/**
 * Parses a kubeconfig taken from a Secret. Only inline credentials are accepted: `exec` and
 * `auth-provider` users would run commands or plugins inside the gateway, and file paths would
 * read the gateway's own files, so a kubeconfig using them is refused.
 */
export function kubeConfigFromSecretValue(text: string): KubeconfigResult {
  const kubeConfig = new KubeConfig();
  try {
    kubeConfig.loadFromString(text);
  } catch {
    return { ok: false, message: 'the kubeconfig in the Secret does not parse' };
  }
  const context = kubeConfig.getCurrentContext();
  if (context === '' || kubeConfig.getCurrentCluster() === null) {
    return { ok: false, message: 'the kubeconfig in the Secret has no current context' };
  }
  for (const user of kubeConfig.getUsers()) {
    if (user.exec !== undefined || user.authProvider !== undefined) {
      return { ok: false, message: 'exec and auth-provider credentials are not allowed' };
    }
    if (user.certFile !== undefined || user.keyFile !== undefined) {
      return { ok: false, message: 'file-based credentials are not allowed' };
    }
  }
  for (const cluster of kubeConfig.getClusters()) {
    if (cluster.caFile !== undefined) {
      return { ok: false, message: 'file-based certificate authorities are not allowed' };
    }
  }
  return { ok: true, kubeConfig };
}

/** Which Secret and key hold a GitopsCluster's kubeconfig, per weave-gitops' conventions. */
export function kubeconfigSecretOf(gitopsCluster: {
  spec?: { secretRef?: { name?: string }; capiClusterRef?: { name?: string } };
}): { name: string; keys: string[] } | undefined {
  const secretName = gitopsCluster.spec?.secretRef?.name;
  if (secretName) return { name: secretName, keys: ['value', 'value.yaml'] };
  const capiName = gitopsCluster.spec?.capiClusterRef?.name;
  if (capiName) return { name: `${capiName}-kubeconfig`, keys: ['value'] };
  return undefined;
}
