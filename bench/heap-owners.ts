/**
 * Who holds the live heap, from a V8 heap snapshot (`SCALE_HEAP_SNAPSHOT=<file>`, see
 * docs/benchmarks.md): each object's retained size (what a GC would free without it, from the
 * dominator tree), the largest owners, and under each of the largest Maps the retained size
 * grouped by field path, per target when --per gives the number of targets.
 *
 *   node --max-old-space-size=8000 bench/dist/heap-owners.js <file> [--per 60000] [--depth 4]
 *
 * A 10,000 x 50 snapshot (about 150 MB) takes seconds.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { table } from './report.js';

interface RawSnapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[]];
      edge_fields: string[];
      edge_types: [string[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/** A heap snapshot as a graph of node indexes; weak and shortcut edges left out, as a GC does. */
class HeapGraph {
  readonly count: number;
  private readonly nf: number;
  private readonly ef: number;
  private readonly firstEdge: Int32Array;
  private readonly field: Record<'type' | 'name' | 'size' | 'edgeType' | 'edgeName' | 'to', number>;

  constructor(private readonly raw: RawSnapshot) {
    const { meta } = raw.snapshot;
    this.nf = meta.node_fields.length;
    this.ef = meta.edge_fields.length;
    this.field = {
      type: meta.node_fields.indexOf('type'),
      name: meta.node_fields.indexOf('name'),
      size: meta.node_fields.indexOf('self_size'),
      edgeType: meta.edge_fields.indexOf('type'),
      edgeName: meta.edge_fields.indexOf('name_or_index'),
      to: meta.edge_fields.indexOf('to_node'),
    };
    const edgeCount = meta.node_fields.indexOf('edge_count');
    this.count = raw.nodes.length / this.nf;
    this.firstEdge = new Int32Array(this.count + 1);
    for (let n = 0; n < this.count; n++)
      this.firstEdge[n + 1] = (this.firstEdge[n] ?? 0) + (raw.nodes[n * this.nf + edgeCount] ?? 0);
  }

  size(n: number): number {
    return this.raw.nodes[n * this.nf + this.field.size] ?? 0;
  }

  name(n: number): string {
    return this.raw.strings[this.raw.nodes[n * this.nf + this.field.name] ?? 0] ?? '';
  }

  type(n: number): string {
    return (
      this.raw.snapshot.meta.node_types[0][this.raw.nodes[n * this.nf + this.field.type] ?? 0] ?? ''
    );
  }

  /** The edges a GC follows from `n`: [edge index, target node]. */
  *edges(n: number): Generator<[number, number]> {
    const types = this.raw.snapshot.meta.edge_types[0];
    for (let e = this.firstEdge[n] ?? 0; e < (this.firstEdge[n + 1] ?? 0); e++) {
      const type = types[this.raw.edges[e * this.ef + this.field.edgeType] ?? 0];
      if (type === 'weak' || type === 'shortcut') continue;
      yield [e, (this.raw.edges[e * this.ef + this.field.to] ?? 0) / this.nf];
    }
  }

  /** A field name, or `[i]` for an element or an internal slot. */
  edgeName(e: number): string {
    const types = this.raw.snapshot.meta.edge_types[0];
    const type = types[this.raw.edges[e * this.ef + this.field.edgeType] ?? 0];
    const value = this.raw.edges[e * this.ef + this.field.edgeName] ?? 0;
    if (type === 'element' || type === 'hidden') return '[i]';
    const name = this.raw.strings[value] ?? '';
    return /^\d+$/.test(name) ? '[i]' : name;
  }
}

/** Immediate dominators (Cooper, Harvey and Kennedy's iteration) and retained sizes from node 0. */
function retainedSizes(graph: HeapGraph): {
  idom: Int32Array;
  retained: Float64Array;
  via: Int32Array;
  parent: Int32Array;
} {
  const order = new Int32Array(graph.count).fill(-1);
  const post: number[] = [];
  const preds: number[][] = Array.from({ length: graph.count }, () => []);
  const via = new Int32Array(graph.count).fill(-1);
  const parent = new Int32Array(graph.count).fill(-1);
  // Depth-first postorder with an explicit stack (the graph is too deep for recursion).
  const stack: [number, Generator<[number, number]>][] = [[0, graph.edges(0)]];
  const seen = new Uint8Array(graph.count);
  seen[0] = 1;
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const next = top[1].next();
    if (next.done === true) {
      stack.pop();
      order[top[0]] = post.length;
      post.push(top[0]);
      continue;
    }
    const [edge, to] = next.value;
    preds[to]?.push(top[0]);
    if (seen[to] === 0) {
      seen[to] = 1;
      via[to] = edge;
      parent[to] = top[0];
      stack.push([to, graph.edges(to)]);
    }
  }
  const idom = new Int32Array(graph.count).fill(-1);
  idom[0] = 0;
  const at = (n: number) => order[n] ?? 0;
  const intersect = (a: number, b: number) => {
    while (a !== b) {
      while (at(a) < at(b)) a = idom[a] ?? 0;
      while (at(b) < at(a)) b = idom[b] ?? 0;
    }
    return a;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (let i = post.length - 2; i >= 0; i--) {
      const n = post[i] ?? 0;
      let dom = -1;
      for (const p of preds[n] ?? []) if (idom[p] !== -1) dom = dom === -1 ? p : intersect(p, dom);
      if (dom !== -1 && idom[n] !== dom) {
        idom[n] = dom;
        changed = true;
      }
    }
  }
  const retained = new Float64Array(graph.count);
  for (const n of post) {
    retained[n] = (retained[n] ?? 0) + graph.size(n);
    if (n !== 0) retained[idom[n] ?? 0] = (retained[idom[n] ?? 0] ?? 0) + (retained[n] ?? 0);
  }
  return { idom, retained, via, parent };
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { per: { type: 'string' }, depth: { type: 'string' }, top: { type: 'string' } },
  });
  const file = positionals[0];
  if (file === undefined) throw new Error('usage: heap-owners <file.heapsnapshot> [--per N]');
  const per = Number(values.per ?? 1);
  const depth = Number(values.depth ?? 3);
  const graph = new HeapGraph(JSON.parse(readFileSync(file, 'utf8')) as RawSnapshot);
  const { idom, retained, via, parent } = retainedSizes(graph);
  // The field that holds n in its dominator: the depth-first tree's edge when that is the
  // dominator's own, else `?` (n is held through a path of other objects).
  const field = (n: number) =>
    via[n] !== -1 && parent[n] === idom[n] ? graph.edgeName(via[n] ?? 0) : '?';
  const label = (n: number) =>
    `${graph.name(n)} (in ${graph.name(idom[n] ?? 0).slice(0, 20)}.${field(n)})`;
  const owners = [...Array(graph.count).keys()]
    .filter((n) => graph.type(n) === 'object' && (retained[n] ?? 0) > 1_000_000)
    .sort((a, b) => (retained[b] ?? 0) - (retained[a] ?? 0))
    .slice(0, Number(values.top ?? 12));
  const bytes = (b: number) => [`${(b / 2 ** 20).toFixed(2)} MiB`, `${(b / per).toFixed(0)} B`];
  console.log(`live heap ${((retained[0] ?? 0) / 2 ** 20).toFixed(1)} MiB\n`);
  console.log(
    table(
      ['owner', 'retained', 'per target'],
      owners.map((n) => [label(n), ...bytes(retained[n] ?? 0)]),
    ),
  );
  for (const map of owners.filter((n) => graph.name(n) === 'Map').slice(0, 3)) {
    const groups = new Map<string, number>();
    for (let n = 0; n < graph.count; n++) {
      const path: string[] = [];
      let q = n;
      while (q !== map && q !== 0 && path.length <= depth) {
        path.unshift(field(q));
        q = idom[q] ?? 0;
      }
      if (q !== map || path.length !== depth) continue;
      const key = path.slice(1).join('.');
      groups.set(key, (groups.get(key) ?? 0) + (retained[n] ?? 0));
    }
    const rows = [...groups].sort((a, b) => b[1] - a[1]).slice(0, 12);
    console.log(`\nunder ${label(map)}:`);
    console.log(
      table(
        ['field path', 'retained', 'per target'],
        rows.map(([k, b]) => [k, ...bytes(b)]),
      ),
    );
  }
}

main();
