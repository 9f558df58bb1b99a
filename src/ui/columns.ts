/**
 * The fleet table's environment columns. Pipelines name their environments themselves; the
 * columns are every name they use, in the order the Pipelines agree on (dev before staging
 * before prod), so most fleets get one column per environment and a Pipeline without one of
 * them an empty cell. When the names are too many to read as columns, they become positions
 * (first, second, ...) and each cell names its environment. Pure.
 */

/** More distinct environment names than this and the columns are positional. */
export const MAX_NAMED_COLUMNS = 8;

/** The table's columns: environment names, or positions when `positional`. */
export interface ColumnPlan {
  /** The header of each column. */
  headers: readonly string[];
  positional: boolean;
  /** Equal for equal plans: a page whose plan changed must be rendered anew. */
  key: string;
}

/** The plan for Pipelines whose environments are, in spec order, `orders`. */
export function columnPlan(orders: Iterable<readonly string[]>): ColumnPlan {
  const shapes = new Map<string, readonly string[]>();
  for (const order of orders) shapes.set(order.join('\n'), order);
  const distinct = new Set([...shapes.values()].flat());
  if (distinct.size <= MAX_NAMED_COLUMNS) {
    const names = mergedOrder([...shapes.values()]);
    return { headers: names, positional: false, key: `n:${JSON.stringify(names)}` };
  }
  const width = Math.max(0, ...[...shapes.values()].map((o) => o.length));
  const headers = Array.from({ length: width }, (_, i) => ordinal(i));
  return { headers, positional: true, key: `p:${String(width)}` };
}

/** Which of `environments` (a Pipeline's, in spec order) goes in each column; undefined = none. */
export function placeInColumns(
  plan: ColumnPlan,
  environments: readonly string[],
): (number | undefined)[] {
  if (plan.positional) return plan.headers.map((_, i) => (i < environments.length ? i : undefined));
  return plan.headers.map((name) => {
    const index = environments.indexOf(name);
    return index < 0 ? undefined : index;
  });
}

/**
 * Every name once, each after the names that precede it in some order (a topological order of
 * "comes right before"); where orders disagree (a cycle), the name with the earliest average
 * position goes first.
 */
function mergedOrder(orders: readonly (readonly string[])[]): string[] {
  const position = new Map<string, { sum: number; count: number }>();
  const before = new Map<string, Set<string>>();
  for (const order of orders) {
    order.forEach((name, i) => {
      const p = position.get(name) ?? { sum: 0, count: 0 };
      position.set(name, { sum: p.sum + i, count: p.count + 1 });
      if (!before.has(name)) before.set(name, new Set());
      const previous = order[i - 1];
      if (previous !== undefined && previous !== name) before.get(name)?.add(previous);
    });
  }
  const average = (name: string) => {
    const p = position.get(name);
    return p === undefined ? 0 : p.sum / p.count;
  };
  const placed: string[] = [];
  const remaining = new Set(before.keys());
  while (remaining.size > 0) {
    const candidates = [...remaining];
    const free = candidates.filter((n) =>
      [...(before.get(n) ?? [])].every((b) => !remaining.has(b)),
    );
    const pool = free.length > 0 ? free : candidates;
    pool.sort((a, b) => average(a) - average(b) || (a < b ? -1 : a > b ? 1 : 0));
    const next = pool[0];
    if (next === undefined) break;
    placed.push(next);
    remaining.delete(next);
  }
  return placed;
}

function ordinal(index: number): string {
  return `stage ${String(index + 1)}`;
}
