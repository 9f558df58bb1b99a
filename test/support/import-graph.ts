/**
 * The relative imports of a source tree as the compiler's pre-processor reads them (static,
 * type-only, re-exports and `import()` alike), and the two checks the layer test makes of them:
 * imports that climb back up a declared order, and import cycles.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** One import: from a file to a file, both relative to the tree's root. */
export interface ImportEdge {
  from: string;
  to: string;
}

/** Every relative import of the .ts files under `root`, `.js` specifiers read as their .ts. */
export function importEdges(root: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of tsFiles(root)) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolve(dirname(file), fileName).replace(/\.js$/, '.ts');
      edges.push({ from: relative(root, file), to: relative(root, target) });
    }
  }
  return edges;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** The unit a file belongs to in the layer order: its top folder, or its own name at the top. */
export function unitOf(file: string): string {
  const slash = file.indexOf('/');
  return slash < 0 ? file : file.slice(0, slash);
}

/**
 * Imports that do not go strictly down `layers` (top first; a unit may import only units of
 * later layers, never its own layer's siblings), and units no layer names, as readable lines.
 */
export function layerViolations(
  edges: readonly ImportEdge[],
  layers: readonly (readonly string[])[],
): string[] {
  const rank = new Map(layers.flatMap((units, i) => units.map((u) => [u, i] as const)));
  const problems = new Set<string>();
  for (const { from, to } of edges) {
    const [a, b] = [unitOf(from), unitOf(to)];
    if (a === b) continue;
    const [ra, rb] = [rank.get(a), rank.get(b)];
    if (ra === undefined) problems.add(`${a} is in no layer`);
    if (rb === undefined) problems.add(`${b} is in no layer`);
    if (ra !== undefined && rb !== undefined && ra >= rb) problems.add(`${from} -> ${to}`);
  }
  return [...problems].sort();
}

/** The import cycles among the files (Tarjan's strongly connected components of two or more). */
export function importCycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v) ?? 0);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) {
      onStack.delete(w);
      component.push(w);
    }
    if (component.length > 1 || next.get(v)?.includes(v)) cycles.push(component.sort());
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return cycles;
}
