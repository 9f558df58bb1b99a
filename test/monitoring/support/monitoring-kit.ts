/**
 * The monitoring kit as the tests read it: the rules (plain file and PrometheusRule), the
 * dashboard's queries, and the metric names the gateway registers, so every query can be
 * checked against what really exists.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { createMetrics } from '../../../src/metrics.js';
import { notifyMetrics } from '../../../src/notify/notify-metrics.js';
import { uiMetrics } from '../../../src/ui/ui-metrics.js';
import { packagePath } from '../../../src/paths.js';

/** The kit's folder, relative to the repository root. */
export const KIT = 'manifests/monitoring';
/** The plain rules file, absolute. */
export const RULES_FILE = packagePath(`${KIT}/promotion-gateway.rules.yaml`);

/** One alerting rule as the files hold it. */
export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** One rule group. */
export interface RuleGroup {
  name: string;
  rules: AlertRule[];
}

function readYaml(path: string): unknown {
  return parse(readFileSync(packagePath(path), 'utf8'));
}

/** The groups of the plain rules file. */
export function plainRuleGroups(): RuleGroup[] {
  return (readYaml(`${KIT}/promotion-gateway.rules.yaml`) as { groups: RuleGroup[] }).groups;
}

/** The groups of the PrometheusRule. */
export function operatorRuleGroups(): RuleGroup[] {
  const rule = readYaml(`${KIT}/prometheusrule.yaml`) as { spec: { groups: RuleGroup[] } };
  return rule.spec.groups;
}

/** Every alerting rule, in file order. */
export function alertRules(): AlertRule[] {
  return plainRuleGroups().flatMap((group) => group.rules);
}

/** One panel's queries. */
export interface PanelQueries {
  title: string;
  exprs: string[];
}

/** The Grafana dashboard, parsed. */
export function dashboard(): {
  templating: { list: { name: string; type: string; query: string }[] };
  panels: { type: string; title: string; datasource?: unknown; targets?: { expr: string }[] }[];
} {
  return JSON.parse(
    readFileSync(packagePath(`${KIT}/promotion-gateway-dashboard.json`), 'utf8'),
  ) as ReturnType<typeof dashboard>;
}

/** Every panel that queries something, with its queries. */
export function panelQueries(): PanelQueries[] {
  return dashboard()
    .panels.filter((panel) => panel.targets !== undefined)
    .map((panel) => ({ title: panel.title, exprs: (panel.targets ?? []).map((t) => t.expr) }));
}

/** The gateway's own metric names (`promotion_gateway_*`) a query or expression names. */
export function gatewayMetricNames(expr: string): string[] {
  return [...new Set(expr.match(/\bpromotion_gateway_[a-z_]+\b/g) ?? [])];
}

/** Every metric name a query names: the gateway's and the Node.js process metrics. */
export function metricNames(expr: string): string[] {
  return [...new Set(expr.match(/\b(?:promotion_gateway|process|nodejs)_[a-z0-9_]+\b/g) ?? [])];
}

/**
 * The series names the gateway's registry can expose: every registered metric (the gateway's,
 * the notifier's, the web view's and Node.js process metrics), histograms with their
 * _bucket, _sum and _count series.
 */
export async function registeredSeriesNames(): Promise<Set<string>> {
  const metrics = createMetrics();
  notifyMetrics(metrics.registry, () => 0);
  uiMetrics(metrics.registry);
  const described = await metrics.registry.getMetricsAsJSON();
  return seriesNames(described.map(({ name, type }) => ({ name, type: String(type) })));
}

/** Series names of metric descriptions: histograms and summaries add their suffixed series. */
export function seriesNames(described: readonly { name: string; type: string }[]): Set<string> {
  const names = new Set<string>();
  for (const { name, type } of described) {
    names.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
  }
  return names;
}

/** The series names of a /metrics page (Prometheus text format), from its `# TYPE` lines. */
export function exposedSeriesNames(text: string): Set<string> {
  const described = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => ({
    name: m[1] ?? '',
    type: m[2] ?? '',
  }));
  return seriesNames(described);
}
