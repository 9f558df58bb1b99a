import { describe, expect, it } from 'vitest';
import { CRD, EVENT, LEASE, PIPELINE, SECRET } from '../../../src/kube/resources.js';
import { KubeApiError, resourcePath } from '../../../src/kube/rest.js';

describe('resourcePath', () => {
  it.each([
    [PIPELINE, undefined, undefined, undefined, '/apis/pipelines.weave.works/v1alpha1/pipelines'],
    [
      PIPELINE,
      'apps',
      'web',
      'status',
      '/apis/pipelines.weave.works/v1alpha1/namespaces/apps/pipelines/web/status',
    ],
    [SECRET, 'flux-system', 'kc', undefined, '/api/v1/namespaces/flux-system/secrets/kc'],
    [EVENT, 'apps', undefined, undefined, '/api/v1/namespaces/apps/events'],
    [LEASE, 'gw', 'resync', undefined, '/apis/coordination.k8s.io/v1/namespaces/gw/leases/resync'],
    [
      CRD,
      undefined,
      'pipelines.pipelines.weave.works',
      undefined,
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/pipelines.pipelines.weave.works',
    ],
  ])('%o in %s named %s (%s)', (resource, namespace, name, subresource, path) => {
    expect(resourcePath(resource, namespace, name, subresource)).toBe(path);
  });

  it('escapes what is not a path segment', () => {
    expect(resourcePath(SECRET, 'a/b', 'c?d')).toBe('/api/v1/namespaces/a%2Fb/secrets/c%3Fd');
  });
});

describe('KubeApiError', () => {
  it('carries the status and the answer, and names neither URL nor credentials', () => {
    const err = new KubeApiError(403, '{"kind":"Status","message":"forbidden"}');
    expect(err).toMatchObject({ name: 'KubeApiError', code: 403, message: 'HTTP 403' });
    expect(err.body).toContain('forbidden');
  });
});
