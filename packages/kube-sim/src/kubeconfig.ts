/**
 * Kubeconfig YAML for simulated clusters: one cluster, user and context per entry, bearer-token
 * auth on loopback; TLS clusters carry their CA, plain-HTTP ones skip TLS verification.
 */
import { stringify } from 'yaml';

/** One context to write: the context is named after the cluster. */
export interface KubeconfigEntry {
  cluster: string;
  server: string;
  user: string;
  token: string;
  /** base64 PEM of the server certificate for TLS clusters. */
  caData?: string | undefined;
}

/** Renders a kubeconfig; the first entry is the current context. */
export function renderKubeconfig(entries: KubeconfigEntry[]): string {
  const userName = (e: KubeconfigEntry): string => `${e.cluster}-${e.user}`;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: entries.map((e) => ({
      name: e.cluster,
      cluster:
        e.caData === undefined
          ? { server: e.server, 'insecure-skip-tls-verify': true }
          : { server: e.server, 'certificate-authority-data': e.caData },
    })),
    users: entries.map((e) => ({ name: userName(e), user: { token: e.token } })),
    contexts: entries.map((e) => ({
      name: e.cluster,
      context: { cluster: e.cluster, user: userName(e), namespace: 'default' },
    })),
    'current-context': entries[0]?.cluster ?? '',
  });
}
