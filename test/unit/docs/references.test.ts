/**
 * The product speaks of itself only: docs, README, sources and tests say what it is, how it works
 * and how to run and measure it, never how it was made. Checked here: no reference to a tracker's
 * numbered items, no numbered work entries for headings, the benchmark reference within its
 * length, and the README's status table readable in a terminal.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SELF = fileURLToPath(import.meta.url);

/** Every .md and .ts file under `dir`, generated and installed folders aside. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!['node_modules', 'dist', 'fixtures', 'results'].includes(entry.name))
        out.push(...filesUnder(path));
    } else if (/\.(md|ts)$/.test(entry.name) && join(ROOT, path) !== SELF) out.push(path);
  }
  return out;
}

const FILES = ['README.md', ...['docs', 'src', 'test', 'bench', 'packages'].flatMap(filesUnder)];

/** A reference to a numbered item of a tracker, anywhere. */
const CITATIONS: readonly RegExp[] = [/\b(issue|ticket)s? #?\d+\b/i, /\btasks? #\d+\b/i];

/** A numbered or dated work entry for a heading, in a document. */
const WORK_HEADINGS: readonly RegExp[] = [
  /^#+ (the )?(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth)\b/im,
  /^#+ .*\b20\d\d-\d\d-\d\d\b/m,
];

describe('docs are references', () => {
  it('no file of the product cites a tracked item or narrates its work', () => {
    const found = FILES.flatMap((file) => {
      const text = readFileSync(join(ROOT, file), 'utf8');
      const patterns = file.endsWith('.md') ? [...CITATIONS, ...WORK_HEADINGS] : CITATIONS;
      return patterns.flatMap((re) => {
        const hit = re.exec(text);
        return hit === null ? [] : [`${relative('.', file)}: ${hit[0]}`];
      });
    });
    expect(found).toEqual([]);
  });

  it('keeps docs/benchmarks.md to a reference of at most 300 lines', () => {
    const lines = readFileSync(join(ROOT, 'docs', 'benchmarks.md'), 'utf8')
      .trimEnd()
      .split('\n');
    expect(lines.length).toBeLessThanOrEqual(300);
  });

  it("keeps the README's status table in short cells", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const status = readme.slice(readme.indexOf('\n## Status\n') + 1);
    const section = status.slice(0, status.indexOf('\n## ', 1));
    const rows = section.split('\n').filter((line) => line.startsWith('| '));
    expect(rows.length).toBeGreaterThan(10);
    for (const row of rows) expect(row.length, row).toBeLessThanOrEqual(120);
  });
});
