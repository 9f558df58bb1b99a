/**
 * Server-side printing (meta.k8s.io/v1 Table), which kubectl asks for in human-readable
 * output: Name, the CRD's additionalPrinterColumns (simple JSONPath) or Age.
 */
import type { IncomingMessage } from 'node:http';
import { isRecord, metaOf, metaString } from './meta.js';
import type { PrinterColumn, ResourceType, SimObject } from './resources.js';

/** Whether the Accept header asks for a Table (`;as=Table;`). */
export function wantsTable(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? '';
  const first = accept.split(',')[0] ?? '';
  return first.includes('as=Table');
}

/** A human duration like the server's (`45s`, `12m`, `5h`, `3d`). */
export function humanAge(from: string, now: Date): string {
  const t = Date.parse(from);
  if (Number.isNaN(t)) return '<unknown>';
  const s = Math.max(0, Math.floor((now.getTime() - t) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** Evaluates the JSONPath subset printer columns use: `.a.b`, `.a[0]`, `.a[?(@.k=="v")].b`. */
export function jsonPathValue(obj: unknown, path: string): unknown {
  const tokens =
    path.match(/\.[A-Za-z0-9_-]+|\[\d+\]|\[\?\(@\.[A-Za-z0-9_-]+==["'][^"']*["']\)\]/g) ?? [];
  let nodes: unknown[] = [obj];
  for (const token of tokens) {
    const next: unknown[] = [];
    for (const n of nodes) {
      if (token.startsWith('.') && isRecord(n)) next.push(n[token.slice(1)]);
      else if (/^\[\d+\]$/.test(token) && Array.isArray(n))
        next.push(n[Number(token.slice(1, -1))]);
      else if (token.startsWith('[?') && Array.isArray(n)) {
        const m = /@\.([A-Za-z0-9_-]+)==["']([^"']*)["']/.exec(token);
        const arr: unknown[] = n;
        next.push(
          ...arr.filter(
            (item: unknown) => isRecord(item) && m !== null && String(item[m[1] ?? '']) === m[2],
          ),
        );
      }
    }
    nodes = next.filter((x) => x !== undefined);
  }
  return nodes[0];
}

function cell(obj: SimObject, col: PrinterColumn, now: Date): unknown {
  const v = jsonPathValue(obj, col.jsonPath);
  if (v === undefined || v === null) return null;
  if (col.type === 'date' && typeof v === 'string') return humanAge(v, now);
  if (col.type === 'integer' || col.type === 'number' || col.type === 'boolean') return v;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** A Table of `items` with row objects as PartialObjectMetadata. */
export function toTable(
  type: ResourceType,
  items: SimObject[],
  metadata: Record<string, unknown>,
  now = new Date(),
): unknown {
  const ageColumn: PrinterColumn = {
    name: 'Age',
    type: 'date',
    jsonPath: '.metadata.creationTimestamp',
  };
  const columns = type.printerColumns.length > 0 ? type.printerColumns : [ageColumn];
  const columnDefinitions = [
    {
      name: 'Name',
      type: 'string',
      format: 'name',
      description: 'Name must be unique within a namespace.',
      priority: 0,
    },
    ...columns.map((c) => ({
      name: c.name,
      type: c.type,
      format: c.format ?? '',
      description: c.description ?? '',
      priority: c.priority ?? 0,
    })),
  ];
  const rows = items.map((o) => ({
    cells: [metaString(o, 'name'), ...columns.map((c) => cell(o, c, now))],
    object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: metaOf(o) },
  }));
  return { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata, columnDefinitions, rows };
}
