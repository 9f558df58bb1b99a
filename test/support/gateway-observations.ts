/**
 * What the end-to-end tests read back: the stored Pipeline and its promotion records and the
 * Promote Events on the management cluster (through kube-sim's code API), and a gateway's
 * metrics over HTTP, as Prometheus scrapes them.
 */
import type { Pipeline, PromotionRecord } from '../../src/pipeline/pipeline-resource.js';
import type { TestFleet } from './fleet.js';

/** The app every test pipeline moves (HelmRelease and Pipeline name). */
export const APP_NAME = 'podinfo';
export const PIPELINE_API = 'pipelines.weave.works/v1alpha1';

/** The stored Pipeline ns/podinfo, read from management with the code API. */
export function pipelineOf(fleet: TestFleet, ns: string): Pipeline {
  const object = fleet.management.get(PIPELINE_API, 'Pipeline', ns, APP_NAME);
  if (object === undefined) throw new Error(`no Pipeline ${ns}/${APP_NAME}`);
  return object as unknown as Pipeline;
}

/** The stored promotion record of one environment, if any. */
export function recordOf(fleet: TestFleet, ns: string, env: string): PromotionRecord | undefined {
  return pipelineOf(fleet, ns).status?.environments?.[env]?.promotion;
}

/** A core Event as far as these tests read it. */
export interface CoreEvent {
  reason?: string;
  metadata: { annotations?: Record<string, string> };
  involvedObject?: { kind?: string; name?: string; namespace?: string };
}

/** Every core Event with reason Promote in namespace `ns` of management. */
export function promoteEvents(fleet: TestFleet, ns: string): CoreEvent[] {
  return (fleet.management.list('v1', 'Event', ns) as unknown as CoreEvent[]).filter(
    (e) => e.reason === 'Promote',
  );
}

/** One series of a metric as the gateway's /metrics page shows it. */
export interface MetricSeries {
  labels: Record<string, string>;
  value: number;
}

/** Every series of metric `name` on the gateway's /metrics page, read over HTTP as Prometheus does. */
export async function scrapeMetric(url: string, name: string): Promise<MetricSeries[]> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out: MetricSeries[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1] ?? ''] = pair[2] ?? '';
    }
    out.push({ labels, value: Number(match[3]) });
  }
  return out;
}

/** The sum of the series of metric `name` whose labels include `labels`. */
export async function metricSum(
  url: string,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const series = await scrapeMetric(url, name);
  return series
    .filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}
