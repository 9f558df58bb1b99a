import { describe, expect, it } from 'vitest';
import {
  clip,
  display,
  escapeUnsafeJson,
  flatten,
  neutralize,
  TextPool,
  truncate,
  unsafeCharacterOf,
} from '../../../src/text/text.js';

describe('flatten', () => {
  it('keeps the text of a string built from parts', () => {
    const revision = `1.2.${String(7)}`;
    const name = ['app', String(42)].join('-');
    const built = `HelmRelease ${name} is ready at ${revision}`;
    expect(flatten(built)).toBe('HelmRelease app-42 is ready at 1.2.7');
    expect(flatten('')).toBe('');
  });

  it('never changes text that Unicode normalization would change', () => {
    // 'e' + combining acute accent: NFC would make it one character; a message must not change.
    const accent = '\u0301';
    const decomposed = `cafe${accent} is ready`;
    expect(flatten(decomposed)).toBe(decomposed);
    expect(flatten(decomposed)).toHaveLength(decomposed.length);
  });

  it('keeps text outside Latin-1 that is already normalized', () => {
    const word = ['ナ', 'ー'].join('');
    const text = `${word} ready ✓ ${String(3)}`;
    expect(flatten(text)).toBe(text);
  });
});

describe('truncate, clip, display', () => {
  it('cuts with a marker, cleans control characters and spaces, stands in for nothing', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('abc', 4)).toBe('abc');
    expect(clip(' a\n\tb\u0007 c ', 10)).toBe('a b c');
    expect(clip(42, 10)).toBe('');
    expect(display(undefined)).toBe('(none)');
    expect(display('  x  ')).toBe('x');
  });
});

describe('control and invisible formatting characters', () => {
  const unsafe: [string, string][] = [
    ['\u001b[2J', 'U+001B'],
    ['\u0000', 'U+0000'],
    ['\u007f', 'U+007F'],
    ['\u009b31m', 'U+009B'],
    ['\u0085', 'U+0085'],
    ['\u202e', 'U+202E'],
    ['\u202a', 'U+202A'],
    ['\u2066', 'U+2066'],
    ['\u2069', 'U+2069'],
    ['\u200e', 'U+200E'],
    ['\u061c', 'U+061C'],
    ['\u200b', 'U+200B'],
    ['\ufeff', 'U+FEFF'],
    ['\u2028', 'U+2028'],
    ['\udb40\udc41', 'U+E0041'],
    ['\ud800', 'U+D800'],
  ];

  it.each(unsafe)('finds %j as %s', (text, code) => {
    expect(unsafeCharacterOf(`ok ${text} ok`)).toBe(code);
  });

  it('finds none in text people write: accents, other scripts, emoji with joiners', () => {
    for (const text of ['café', 'שלום עולם', 'नमस्ते', '👩‍💻 done', 'a\u200cb', 'plain ASCII'])
      expect(unsafeCharacterOf(text)).toBeUndefined();
  });

  it('display, clip and neutralize never let one through; JSON keeps its value', () => {
    for (const [text] of unsafe) {
      const shown = [display(`a ${text} b`), clip(`a ${text} b`, 50), neutralize(`a${text}b`)];
      for (const line of shown) expect(unsafeCharacterOf(line)).toBeUndefined();
      const json = escapeUnsafeJson(JSON.stringify({ reason: `a${text}b` }));
      expect(unsafeCharacterOf(json)).toBeUndefined();
      expect(JSON.parse(json)).toEqual({ reason: `a${text}b` });
    }
    expect(display('halted \u202eevil\u202c by \u009b31m')).toBe(
      'halted \ufffdevil\ufffd by \ufffd31m',
    );
    expect(neutralize('a\u001bb\nc')).toBe('a\ufffdb\ufffdc');
    expect(neutralize('👩‍💻 café')).toBe('👩‍💻 café');
  });

  it('never cuts a surrogate pair in half', () => {
    expect(truncate('ab😀cd', 4)).toBe('ab…');
    expect(unsafeCharacterOf(truncate('ab😀cd', 4))).toBeUndefined();
  });
});

describe('TextPool', () => {
  it('hands back equal text, holding one entry per distinct text', () => {
    const pool = new TextPool();
    const revision = '1.2.7';
    const texts = ['a', 'b', 'a'].map((app) => pool.one(`dev is healthy at ${revision} (${app})`));
    expect(texts).toEqual([
      'dev is healthy at 1.2.7 (a)',
      'dev is healthy at 1.2.7 (b)',
      'dev is healthy at 1.2.7 (a)',
    ]);
    expect(pool.size).toBe(2);
  });

  it('starts afresh past its capacity, so texts no longer used are let go', () => {
    const pool = new TextPool(3);
    for (const t of ['a', 'b', 'c']) pool.one(t);
    expect(pool.size).toBe(3);
    expect(pool.one('d')).toBe('d');
    expect(pool.size).toBe(1);
    expect(pool.one('a')).toBe('a');
    expect(pool.size).toBe(2);
  });
});
