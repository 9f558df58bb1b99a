/**
 * manifests/monitoring/ as `kubectl kustomize` renders it: a ServiceMonitor that selects the
 * gateway's metrics Service and port, the PrometheusRule as the file holds it, and the dashboard
 * in a ConfigMap the Grafana sidecar loads, every panel querying the `datasource` variable.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../../src/paths.js';
import { kustomize, only } from '../support/kustomize.js';
import { KIT, dashboard, operatorRuleGroups, panelQueries } from './support/monitoring-kit.js';

const kit = kustomize(KIT);
const deploy = kustomize('manifests/deploy');

describe('the monitoring kit, rendered', () => {
  it('holds a ServiceMonitor, the PrometheusRule and the dashboard ConfigMap, in the namespace of the gateway', () => {
    expect(kit.map((o) => o.kind).sort()).toEqual([
      'ConfigMap',
      'PrometheusRule',
      'ServiceMonitor',
    ]);
    for (const object of kit) expect(object.metadata.namespace).toBe('promotion-system');
    expect((only(kit, 'PrometheusRule').spec as { groups: unknown }).groups).toEqual(
      operatorRuleGroups(),
    );
  });

  it('scrapes the metrics Service of manifests/deploy by its labels and port name', () => {
    const monitor = only(kit, 'ServiceMonitor').spec as {
      selector: { matchLabels: Record<string, string> };
      endpoints: { port: string; path: string }[];
    };
    const service = only(deploy, 'Service', 'promotion-gateway-metrics');
    expect(service.metadata.labels).toMatchObject(monitor.selector.matchLabels);
    const ports = (service.spec as { ports: { name: string }[] }).ports.map((p) => p.name);
    expect(ports).toContain(monitor.endpoints[0]?.port);
    expect(monitor.endpoints[0]?.path).toBe('/metrics');
  });

  it('ships the dashboard JSON unchanged, labelled for the Grafana sidecar', () => {
    const map = only(kit, 'ConfigMap', 'promotion-gateway-dashboard');
    expect(map.metadata.labels).toMatchObject({ grafana_dashboard: '1' });
    const file = readFileSync(packagePath(KIT, 'promotion-gateway-dashboard.json'), 'utf8');
    expect((map.data as Record<string, string>)['promotion-gateway-dashboard.json']).toBe(file);
  });

  it('queries the datasource variable from every panel and target', () => {
    const variable = dashboard().templating.list.find((v) => v.name === 'datasource');
    expect(variable).toMatchObject({ type: 'datasource', query: 'prometheus' });
    const panels = dashboard().panels.filter((p) => p.type !== 'row');
    expect(panels.length).toBe(panelQueries().length);
    for (const panel of panels) {
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
      for (const target of panel.targets ?? [])
        expect((target as { datasource?: unknown }).datasource, panel.title).toEqual(
          panel.datasource,
        );
    }
  });
});
