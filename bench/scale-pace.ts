/**
 * The scale bench's paces: the same wave run normally, with the gateway limited to
 * one core (`taskset`: its process and every thread pinned to CPU 0), and with every kube-sim
 * API server answering 20 ms and 100 ms late (a LatencyFault on every resource request of every
 * cluster, management included). Reads per promotion must not depend on the pace.
 */
import { table } from './report.js';
import type { ScaleResult } from './scale.js';
import type { PaceName } from './scale-types.js';

/** What one pace changes. */
export interface Pace {
  name: PaceName;
  label: string;
  oneCore: boolean;
  /** Added to every resource request of every cluster (0: none). */
  latencyMs: number;
}

const NORMAL: Pace = { name: 'normal', label: 'normal', oneCore: false, latencyMs: 0 };

/** Every pace, in the order they are run and shown. */
export const PACES: readonly Pace[] = [
  NORMAL,
  { name: 'one-core', label: 'gateway on one core', oneCore: true, latencyMs: 0 },
  { name: 'latency-20ms', label: 'API +20 ms/request', oneCore: false, latencyMs: 20 },
  { name: 'latency-100ms', label: 'API +100 ms/request', oneCore: false, latencyMs: 100 },
];

/** The pace named `name` (normal when undefined). */
export function paceOf(name: PaceName | undefined): Pace {
  return PACES.find((p) => p.name === (name ?? 'normal')) ?? NORMAL;
}

/** The paces a `--paces a,b` option names; all of them when absent. */
export function pacesFrom(option: string | undefined): PaceName[] {
  if (option === undefined) return PACES.map((p) => p.name);
  const names = option.split(',');
  for (const n of names)
    if (!PACES.some((p) => p.name === n))
      throw new Error(`unknown pace ${n} (one of ${PACES.map((p) => p.name).join(', ')})`);
  return names as PaceName[];
}

const sizeOf = (r: ScaleResult) =>
  `${r.spec.pipelines.toLocaleString('en')} x ${String(r.spec.clusters)}`;

/** The paces side by side: per size and layout, reads per promotion and wave time at each. */
export function paceTable(results: readonly ScaleResult[]): string {
  const paces = PACES.filter((p) => results.some((r) => paceOf(r.spec.pace).name === p.name));
  const groups = new Map<string, ScaleResult[]>();
  for (const r of results) {
    const key = `${sizeOf(r)}|${r.spec.layout}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const rows = [...groups.values()].flatMap((group) => {
    const first = group[0];
    if (first === undefined) return [];
    return [
      [
        sizeOf(first),
        first.spec.layout === 'env' ? 'ns per env' : 'ns per app',
        ...paces.map((p) => {
          const r = group.find((g) => paceOf(g.spec.pace).name === p.name);
          if (r === undefined) return '-';
          const perPromotion = r.waveReads / Math.max(1, r.wavePromotions);
          return `${perPromotion.toFixed(2)} reads/promotion, ${(r.waveMs / 1000).toFixed(1)} s`;
        }),
      ],
    ];
  });
  return table(['N x C', 'layout', ...paces.map((p) => p.label)], rows);
}
