/**
 * Checks a simulated GitLab answer against the documented examples recorded under
 * fixtures/gitlab (GitLab publishes no machine-readable description of these endpoints on npm):
 * the answer has every key the endpoint's example has (less the listed omissions, each with its
 * reason), no key that no documented example of the entity has, and JSON types that agree.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

type JsonType = 'null' | 'array' | 'object' | 'string' | 'number' | 'boolean';

function typeOf(v: unknown): JsonType {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v as JsonType;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeOf(v) === 'object';

/** Reads a recorded GitLab example. */
export function gitlabFixture(name: string): ReturnType<typeof JSON.parse> {
  return JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'gitlab', name), 'utf8'));
}

/** What an answer is checked against. */
export interface ShapeContract {
  /** The example of this endpoint: all its keys must be present (less `omitted`). */
  required: unknown;
  /** Every documented example of the entity: the answer may use any key they use. */
  documented: unknown[];
  /** Dotted key paths the simulator leaves out on purpose, with the reason. */
  omitted: Record<string, string>;
}

function typeAgrees(value: unknown, docs: unknown[]): boolean {
  const types = new Set(docs.map(typeOf));
  if (value === null)
    return types.has('null') || [...types].every((t) => t === 'object' || t === 'string');
  // Examples that only show null say nothing about the type.
  return types.has(typeOf(value)) || [...types].every((t) => t === 'null');
}

/** Every disagreement between `actual` and the contract, as readable lines ([] = fits). */
export function shapeProblems(actual: unknown, contract: ShapeContract, path = ''): string[] {
  if (!isObject(actual)) return [];
  const problems: string[] = [];
  const documented = contract.documented.filter(isObject);
  const allowed = new Set(documented.flatMap((d) => Object.keys(d)));
  if (isObject(contract.required)) {
    for (const key of Object.keys(contract.required))
      if (!(key in actual) && !(`${path}${key}` in contract.omitted))
        problems.push(`${path}${key}: documented, missing from the simulator`);
  }
  for (const [key, value] of Object.entries(actual)) {
    const where = `${path}${key}`;
    if (!allowed.has(key)) {
      problems.push(`${where}: not in any documented example`);
      continue;
    }
    const docs = documented.map((d) => d[key]).filter((v) => v !== undefined);
    if (!typeAgrees(value, docs)) {
      problems.push(
        `${where}: ${typeOf(value)}, documented as ${[...new Set(docs.map(typeOf))].join('|')}`,
      );
      continue;
    }
    const required = isObject(contract.required) ? contract.required[key] : undefined;
    const nested = { ...contract, required, documented: docs };
    if (isObject(value)) problems.push(...shapeProblems(value, nested, `${where}.`));
    if (Array.isArray(value) && value.length > 0) {
      const items = docs.flatMap((d): unknown[] => (Array.isArray(d) ? (d as unknown[]) : []));
      const first = Array.isArray(required) ? (required as unknown[])[0] : undefined;
      problems.push(
        ...shapeProblems(
          value[0],
          { ...nested, required: first, documented: items },
          `${where}[].`,
        ),
      );
    }
  }
  return problems;
}
