/**
 * The Secret's extra headers: parsed from YAML or JSON, names lower-cased, reserved names and
 * line breaks refused with problems that never quote a value.
 */
import { describe, expect, it } from 'vitest';
import {
  allowedExtraHeaders,
  MAX_EXTRA_HEADERS,
  parseExtraHeaders,
} from '../../../src/outbound/extra-headers.js';

function problemOf(text: string): string {
  const result = parseExtraHeaders(text);
  if (result.ok) throw new Error('expected a problem');
  return result.problem;
}

describe('parseExtraHeaders', () => {
  it('reads a YAML map and a JSON map, lower-casing names and writing scalars as text', () => {
    expect(parseExtraHeaders('Authorization: Bearer abc\nX-Retries: 3\nX-Flag: true\n')).toEqual({
      ok: true,
      value: { authorization: 'Bearer abc', 'x-retries': '3', 'x-flag': 'true' },
    });
    expect(parseExtraHeaders('{"X-Api-Key": "k"}')).toEqual({
      ok: true,
      value: { 'x-api-key': 'k' },
    });
    expect(parseExtraHeaders('')).toEqual({ ok: true, value: {} });
  });

  it('refuses what is not a map', () => {
    expect(problemOf('Bearer s3cret')).toBe('headers is not a map of header names to values');
    expect(problemOf('- a\n- b')).toBe('headers is not a map of header names to values');
    expect(problemOf('a: [1\n')).toBe('headers is not valid YAML or JSON');
  });

  it('refuses reserved names, duplicates, line breaks and non-text values, quoting no value', () => {
    const problem = problemOf(
      [
        'Content-Type: text/plain',
        'webhook-signature: v1,x',
        'X-A: one',
        'x-a: two',
        'X-Split: "s3cret\\r\\nX-Injected: 1"',
        'X-Nested: {a: s3cret}',
        '"bad name": s3cret',
      ].join('\n'),
    );
    expect(problem).toContain('headers cannot set "Content-Type": the gateway sets it');
    expect(problem).toContain('headers cannot set "webhook-signature"');
    expect(problem).toContain('headers sets "x-a" twice');
    expect(problem).toContain(
      'headers "X-Split" has a value with a line break or control character',
    );
    expect(problem).toContain('headers "X-Nested" is not a text value');
    expect(problem).toContain('headers has a name that is not an HTTP header name');
    expect(problem).not.toContain('s3cret');
    expect(problem).not.toContain('bad name');
  });

  it('refuses too many headers', () => {
    const many = Array.from({ length: MAX_EXTRA_HEADERS + 1 }, (_, i) => `x-h${i}: v`).join('\n');
    expect(problemOf(many)).toContain(`at most ${MAX_EXTRA_HEADERS}`);
  });
});

describe('allowedExtraHeaders', () => {
  it('drops what parseExtraHeaders would refuse, whoever built the map', () => {
    expect(
      allowedExtraHeaders({
        'X-Ok': 'fine\tvalue',
        'Content-Length': '1',
        Host: 'evil',
        'X-Lf': 'a\nb',
        'X-Nul': 'a\u0000b',
        'X-Latin1': 'café',
        'X-Wide': 'ā',
        'a b': 'c',
      }),
    ).toEqual({ 'x-ok': 'fine\tvalue', 'x-latin1': 'café' });
    expect(allowedExtraHeaders(undefined)).toEqual({});
  });
});
