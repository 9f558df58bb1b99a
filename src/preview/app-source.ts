/**
 * Where an app object takes its content from, as a preview names it: a HelmRelease's chart
 * (`spec.chart.spec` with its sourceRef, or `spec.chartRef`), a Kustomization's `sourceRef` and
 * `path`. Read from the object as the cluster holds it; anything else is no source.
 */
import type { KubeObject } from '../kube/ports.js';
import { display } from '../text/text.js';
import type { AppSource } from './change-set.js';

type Fields = Record<string, unknown>;

function fields(value: unknown): Fields | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Fields)
    : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? display(value, 253) : undefined;
}

/** A sourceRef-like object (kind, name, optional namespace) with the extra members given. */
function refOf(value: unknown, extra: Partial<AppSource>): AppSource | undefined {
  const ref = fields(value);
  const kind = text(ref?.kind);
  const name = text(ref?.name);
  if (kind === undefined || name === undefined) return undefined;
  const namespace = text(ref?.namespace);
  return { kind, name, ...(namespace === undefined ? {} : { namespace }), ...extra };
}

/** The source of `obj`, or undefined when it names none the preview knows. */
export function appSourceOf(obj: KubeObject): AppSource | undefined {
  const spec = fields(obj.spec);
  if (spec === undefined) return undefined;
  if (obj.kind === 'HelmRelease') {
    const chart = fields(fields(spec.chart)?.spec);
    if (chart !== undefined) {
      const name = text(chart.chart);
      return refOf(chart.sourceRef, name === undefined ? {} : { chart: name });
    }
    return refOf(spec.chartRef, {});
  }
  if (obj.kind === 'Kustomization') {
    const path = text(spec.path);
    return refOf(spec.sourceRef, path === undefined ? {} : { path });
  }
  return undefined;
}
