import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  kubeConfigFromSecretValue,
  kubeconfigSecretOf,
} from '../../../src/kube/kubeconfig-secret.js';

function kubeconfig(user: Record<string, unknown>, cluster: Record<string, unknown> = {}): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443', ...cluster } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'ctx',
  });
}

describe('kubeConfigFromSecretValue', () => {
  it('accepts inline token credentials', () => {
    const result = kubeConfigFromSecretValue(kubeconfig({ token: 'abc' }));
    expect(result.ok).toBe(true);
    if (result.ok)
      expect(result.kubeConfig.getCurrentCluster()?.server).toBe('https://127.0.0.1:6443');
  });

  it.each([
    [
      'exec plugins',
      {
        exec: {
          command: '/bin/sh',
          args: ['-c', 'id'],
          apiVersion: 'client.authentication.k8s.io/v1',
        },
      },
    ],
    ['auth providers', { 'auth-provider': { name: 'oidc', config: {} } }],
    [
      'client certificate files',
      { 'client-certificate': '/etc/passwd', 'client-key': '/etc/shadow' },
    ],
  ])("refuses %s, which would run commands or read the gateway's files", (_what, user) => {
    const result = kubeConfigFromSecretValue(kubeconfig(user));
    expect(result.ok).toBe(false);
  });

  it('refuses certificate-authority files', () => {
    const result = kubeConfigFromSecretValue(
      kubeconfig({ token: 'abc' }, { 'certificate-authority': '/etc/ssl/ca.pem' }),
    );
    expect(result).toMatchObject({
      ok: false,
      message: expect.stringContaining('certificate') as unknown,
    });
  });

  it('refuses text that is not a kubeconfig, without echoing it', () => {
    const result = kubeConfigFromSecretValue('{not yaml: [ token: s3cr3t');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).not.toContain('s3cr3t');
  });
});

describe('kubeconfigSecretOf', () => {
  it('follows weave-gitops conventions: secretRef first, then the CAPI secret', () => {
    expect(kubeconfigSecretOf({ spec: { secretRef: { name: 'dev-kc' } } })).toEqual({
      name: 'dev-kc',
      keys: ['value', 'value.yaml'],
    });
    expect(kubeconfigSecretOf({ spec: { capiClusterRef: { name: 'dev' } } })).toEqual({
      name: 'dev-kubeconfig',
      keys: ['value'],
    });
    expect(kubeconfigSecretOf({ spec: {} })).toBeUndefined();
  });
});
