/**
 * What every answer of every door must be, whatever was sent: no 5xx but the documented 503s
 * (each with Retry-After); an API error is exactly `{code, message}` with a registered code
 * whose status it carries (5xx with the registry's fixed text); a view error is an HTML page;
 * and no answer carries a stack trace, a source path or a secret. An unauthenticated request
 * gets no answer only an authenticated caller may get.
 */
import { expect } from 'vitest';
import { ErrorCodes, type ErrorCode } from '../../../src/ingress/http-errors.js';
import type { Answer } from './wire.js';

/** The 503s docs/api.md lists; each tells the caller when to retry. */
const DOCUMENTED_503: ReadonlySet<string> = new Set([
  'NotReady',
  'QueueFull',
  'StatusHeld',
  'Unavailable',
  'NotEvaluated',
]);

/**
 * Codes a caller meets only once authenticated: the schema (authentication comes first, so a
 * stranger cannot probe it), the gate, the records and the queues.
 */
const AFTER_AUTHENTICATION: ReadonlySet<string> = new Set([
  'InvalidBody',
  'Forbidden',
  'NotWaiting',
  'Replayed',
  'Contended',
  'NotEvaluated',
  'QueueFull',
  'StatusHeld',
  'Unavailable',
]);

/** What must never leave the process: stack frames, a serialised error's stack, source paths. */
const LEAKS = [/\n\s+at [^\n]*:\d+:\d+/, /node:internal/, /file:\/\//, /"stack"\s*:/];

function bodyText(answer: Answer): string {
  return answer.body.toString('utf8');
}

/** Fails when the body holds a stack trace, a source path or one of `secrets`. */
export function expectNoLeak(answer: Answer, secrets: readonly string[], what: string): void {
  const text = bodyText(answer);
  for (const leak of LEAKS) expect(text, `${what}: leaks ${String(leak)}`).not.toMatch(leak);
  expect(text.includes(process.cwd()), `${what}: leaks a source path`).toBe(false);
  for (const secret of secrets)
    expect(text.includes(secret), `${what}: leaks a secret`).toBe(false);
}

/** The registered code of an API error answer, after checking its whole shape. */
export function expectApiError(answer: Answer, what: string): ErrorCode {
  expect(answer.headers['content-type'], `${what}: content type`).toMatch(/^application\/json/);
  const body = JSON.parse(bodyText(answer)) as Record<string, unknown>;
  const { code, message, ...rest } = body;
  expect(typeof code === 'string' && code in ErrorCodes, `${what}: code ${String(code)}`).toBe(
    true,
  );
  const entry = ErrorCodes[code as ErrorCode];
  expect(answer.status, `${what}: ${String(code)}'s status`).toBe(entry.status);
  expect(typeof message === 'string' && message.length > 0, `${what}: message`).toBe(true);
  if (entry.status >= 500) expect(message, `${what}: 5xx message`).toBe(entry.message);
  // Only /readyz adds its reasons; every other error is exactly {code, message}.
  expect(Object.keys(rest), `${what}: extra fields`).toEqual(
    code === 'NotReady' ? ['reasons'] : [],
  );
  return code as ErrorCode;
}

/**
 * No 5xx but a documented 503 with Retry-After (NotReady: /readyz, which says why instead); an
 * answer to HEAD has no body to name its code, so its status and Retry-After must do.
 */
function expectNoServerError(
  answer: Answer,
  code: string | undefined,
  what: string,
  head: boolean,
): void {
  if (answer.status < 500) return;
  if (head) expect(answer.status, `${what}: HEAD answered`).toBe(503);
  else
    expect(
      DOCUMENTED_503.has(code ?? ''),
      `${what}: ${String(answer.status)} ${String(code)}`,
    ).toBe(true);
  if (code !== 'NotReady')
    expect(answer.headers['retry-after'], `${what}: Retry-After`).toBeDefined();
}

/** Checks one answer of the API port; `head`: it answered a HEAD request (no body). */
export function checkApiAnswer(
  answer: Answer,
  secrets: readonly string[],
  what: string,
  head = false,
): ErrorCode | undefined {
  expect(answer.status, `${what}: status`).toBeGreaterThanOrEqual(200);
  const code = answer.status >= 400 && !head ? expectApiError(answer, what) : undefined;
  expectNoServerError(answer, code, what, head);
  expectNoLeak(answer, secrets, what);
  return code;
}

/** Checks one answer of the view's port: pages and errors are HTML, streams are SSE. */
export function checkViewAnswer(answer: Answer, secrets: readonly string[], what: string): void {
  expect(answer.status, `${what}: status`).toBeGreaterThanOrEqual(200);
  expect(answer.status, `${what}: status`).toBeLessThan(500);
  const type = answer.headers['content-type'] ?? '';
  if (answer.status >= 400 && answer.body.length > 0) {
    if (type.startsWith('application/json')) expectApiError(answer, what);
    else expect(type, `${what}: error content type`).toMatch(/^text\/html/);
  }
  expectNoLeak(answer, secrets, what);
}

/** An unauthenticated request: no success, and no code only a known caller may see. */
export function expectUnauthenticatedAnswer(
  answer: Answer,
  code: string | undefined,
  what: string,
): void {
  expect(
    answer.status >= 200 && answer.status < 300,
    `${what}: ${String(answer.status)} without a valid credential`,
  ).toBe(false);
  expect(
    AFTER_AUTHENTICATION.has(code ?? ''),
    `${what}: ${String(code)} without a valid credential`,
  ).toBe(false);
}
