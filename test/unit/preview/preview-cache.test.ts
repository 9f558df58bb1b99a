import { describe, expect, it } from 'vitest';
import { PreviewCache, previewKey } from '../../../src/preview/preview-cache.js';
import { fileChanges, fileDiff } from '../../../src/preview/unified-diff.js';

describe('PreviewCache', () => {
  it('keeps at most its bound, dropping the least recently used', () => {
    const cache = new PreviewCache<number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now newer than b
    cache.set('c', 3);
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    for (let i = 0; i < 100; i++) cache.set(`k${String(i)}`, i);
    expect(cache.size).toBe(2);
  });

  it('keys parts so that no part can pass for another', () => {
    expect(previewKey(['a,b', 'c'])).not.toBe(previewKey(['a', 'b,c']));
    expect(previewKey(['ns', 'p', 3, 'prod'])).toBe(previewKey(['ns', 'p', 3, 'prod']));
  });
});

describe('fileChanges', () => {
  const file = (path: string, lines: number) => ({
    path,
    before: Array.from({ length: lines }, (_, i) => `line ${String(i)}: 1.0.0\n`).join(''),
    after: Array.from({ length: lines }, (_, i) => `line ${String(i)}: 1.1.0\n`).join(''),
  });

  it('renders a unified diff per file in path order, under the bound untouched', () => {
    const out = fileChanges([file('b.yaml', 1), file('a.yaml', 1)]);
    expect(out.truncated).toBe(false);
    expect(out.files.map((f) => f.path)).toEqual(['a.yaml', 'b.yaml']);
    expect(out.files[0]?.diff).toBe(
      '--- a/a.yaml\n+++ b/a.yaml\n@@ -1,1 +1,1 @@\n-line 0: 1.0.0\n+line 0: 1.1.0\n',
    );
  });

  it('cuts at the bound on a line end and says so', () => {
    const whole = fileDiff(file('a.yaml', 50));
    const out = fileChanges([file('a.yaml', 50), file('b.yaml', 50)], 1000);
    expect(out.truncated).toBe(true);
    const kept = out.files.map((f) => f.diff).join('');
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(1000);
    expect(whole.startsWith(out.files[0]?.diff ?? 'x')).toBe(true);
    expect(out.files[0]?.diff.endsWith('\n')).toBe(true);
  });
});
