import { describe, expect, it } from 'vitest';
import { clip, display, flatten, TextPool, truncate } from '../../../src/pipeline/text.js';

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
