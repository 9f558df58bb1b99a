import { describe, expect, it } from 'vitest';
import {
  classifyKubeError,
  isConflict,
  isNotFound,
  isUnavailable,
} from '../../../src/kube/errors.js';
import { KubeApiError } from '../../../src/kube/rest.js';

const status = (code: number, message: string) =>
  new KubeApiError(code, JSON.stringify({ kind: 'Status', code, message }));

describe('Kubernetes call failures', () => {
  it.each([
    [404, 'NotFound', 'pipelines "p" not found', false],
    [403, 'Forbidden', 'pipelines is forbidden', false],
    [401, 'Unauthorized', 'the cluster rejected the gateway credentials', false],
    [409, 'ServerError', 'the object has been modified', false],
    [429, 'Unavailable', 'the cluster answered 429', true],
    [503, 'Unavailable', 'the cluster answered 503', true],
    [500, 'ServerError', 'the cluster answered 500', true],
  ] as const)('classifies an answer %i as %s', (code, reason, message, unavailable) => {
    const err = status(code, code === 401 ? 'Unauthorized' : message);
    expect(classifyKubeError(err)).toEqual({ reason, message, status: code });
    expect(isUnavailable(err)).toBe(unavailable);
  });

  it('tells 409 and 404 answers apart from anything else', () => {
    expect(isConflict(status(409, 'x'))).toBe(true);
    expect(isNotFound(status(404, 'x'))).toBe(true);
    expect(isConflict(status(404, 'x'))).toBe(false);
    expect(isNotFound(new Error('not found'))).toBe(false);
  });

  it('reads a timeout or abort as a Timeout, though a DOMException carries a numeric code', () => {
    for (const name of ['TimeoutError', 'AbortError']) {
      const err = new DOMException('The operation timed out.', name);
      expect(typeof (err as unknown as { code: unknown }).code).toBe('number');
      expect(classifyKubeError(err)).toEqual({
        reason: 'Timeout',
        message: 'the request to the cluster timed out',
      });
      expect(isUnavailable(err)).toBe(true);
    }
  });

  it('keeps only the code of a transport failure, found on its cause too', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:6443'), {
      code: 'ECONNREFUSED',
    });
    expect(classifyKubeError(new Error('wrapped', { cause: refused }))).toEqual({
      reason: 'Unavailable',
      message: 'the cluster is unreachable (ECONNREFUSED)',
    });
    expect(isUnavailable(refused)).toBe(true);
  });

  it('reads a TLS certificate the gateway does not accept as CertificateRejected, by its code only', () => {
    for (const code of [
      'CERT_HAS_EXPIRED',
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'ERR_TLS_CERT_ALTNAME_INVALID',
    ]) {
      const failed = Object.assign(new Error(`certificate problem for 10.0.0.1 (${code})`), {
        code,
      });
      expect(classifyKubeError(new Error('fetch failed', { cause: failed }))).toEqual({
        reason: 'CertificateRejected',
        message: `the cluster's TLS certificate was not accepted (${code})`,
      });
      // Not a transient failure: waiting does not mend a certificate.
      expect(isUnavailable(failed)).toBe(false);
    }
  });
});
