import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ErrorCodes, GatewayError, errorBody } from '../../../src/ingress/http-errors.js';
import { StatusWritesHeld } from '../../../src/kube/status-writer.js';
import { packagePath } from '../../../src/paths.js';
import { toGatewayError } from '../../../src/ingress/error-handling.js';

function withProps(props: Record<string, unknown>): Error {
  return Object.assign(new Error('detail that must not leak'), props);
}

describe('toGatewayError', () => {
  it('keeps GatewayErrors as they are', () => {
    const error = new GatewayError('InvalidBody', 'Invalid body: /x');
    expect(toGatewayError(error)).toBe(error);
  });

  it.each([
    ['FST_ERR_CTP_INVALID_MEDIA_TYPE', 'UnsupportedMediaType'],
    ['FST_ERR_CTP_BODY_TOO_LARGE', 'PayloadTooLarge'],
    ['FST_ERR_CTP_EMPTY_JSON_BODY', 'InvalidJson'],
    ['FST_ERR_BAD_URL', 'BadRequest'],
  ])('maps fastify code %s to %s', (code, expected) => {
    expect(toGatewayError(withProps({ code, statusCode: 400 })).code).toBe(expected);
  });

  it('maps by status and hides everything 5xx', () => {
    expect(toGatewayError(withProps({ statusCode: 429 })).code).toBe('RateLimited');
    expect(toGatewayError(withProps({ statusCode: 418 })).code).toBe('BadRequest');
    expect(toGatewayError(withProps({ code: 'toString' })).code).toBe('Internal');
    const internal = toGatewayError(withProps({ statusCode: 502 }));
    expect(internal.code).toBe('Internal');
    expect(internal.detail).toBeUndefined();
    expect(toGatewayError('a string').code).toBe('Internal');
    expect(toGatewayError(null).code).toBe('Internal');
  });
});

describe('a status write held by the installed CRD', () => {
  it('answers 503 StatusHeld with Retry-After and the fixed text, not the fields', () => {
    const mapped = toGatewayError(new StatusWritesHeld(['status.environments.*.promotion']));
    expect(mapped.code).toBe('StatusHeld');
    expect(mapped.status).toBe(503);
    expect(mapped.retryAfterSeconds).toBe(60);
    expect(errorBody(mapped.code, mapped.detail).message).toBe(ErrorCodes.StatusHeld.message);
  });
});

describe('the error registry in docs/api.md', () => {
  const docs = readFileSync(packagePath('docs', 'api.md'), 'utf8');
  it.each(Object.entries(ErrorCodes))('documents %s with its status', (code, { status }) => {
    expect(docs).toMatch(new RegExp(`\\|\\s*${status}\\s*\\|\\s*\`${code}\``));
  });
});
