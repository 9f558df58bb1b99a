import { describe, expect, it } from 'vitest';
import { createMetrics, OTHER_CLUSTER } from '../../src/metrics.js';

describe('createMetrics', () => {
  it('gives every gateway its own registry', async () => {
    const a = createMetrics({ defaultMetrics: false });
    const b = createMetrics({ defaultMetrics: false });
    a.eventsReceived.inc({ outcome: 'accepted' });
    expect(await a.registry.metrics()).toContain(
      'promotion_gateway_events_received_total{outcome="accepted"} 1',
    );
    expect(await b.registry.metrics()).not.toContain('outcome="accepted"');
  });

  it('reads the queue depth and catalog size from their sources at scrape time', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    expect(await metrics.registry.metrics()).toContain('promotion_gateway_hint_queue_depth 0');
    let depth = 7;
    metrics.bindSources({
      hintQueueDepth: () => depth,
      pipelines: () => 3,
      referencedObjects: () => 9,
    });
    const first = await metrics.registry.metrics();
    expect(first).toContain('promotion_gateway_hint_queue_depth 7');
    expect(first).toContain('promotion_gateway_catalog_size{what="pipelines"} 3');
    expect(first).toContain('promotion_gateway_catalog_size{what="objects"} 9');
    depth = 2;
    expect(await metrics.registry.metrics()).toContain('promotion_gateway_hint_queue_depth 2');
  });

  it('reads the halts in force by scope at scrape time, 0 until a source is bound', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    expect(await metrics.registry.metrics()).toContain(
      'promotion_gateway_halts_in_force{scope="pipeline"} 0',
    );
    let counts = { environment: 2, pipeline: 1 };
    metrics.bindSources({
      hintQueueDepth: () => 0,
      pipelines: () => 0,
      referencedObjects: () => 0,
      halts: () => counts,
    });
    const text = await metrics.registry.metrics();
    expect(text).toContain('promotion_gateway_halts_in_force{scope="environment"} 2');
    expect(text).toContain('promotion_gateway_halts_in_force{scope="pipeline"} 1');
    counts = { environment: 0, pipeline: 0 };
    expect(await metrics.registry.metrics()).toContain(
      'promotion_gateway_halts_in_force{scope="environment"} 0',
    );
  });

  it('can collect process metrics in two registries at once', async () => {
    const a = createMetrics();
    const b = createMetrics();
    expect(await a.registry.metrics()).toContain('process_cpu_user_seconds_total');
    expect(await b.registry.metrics()).toContain('process_cpu_user_seconds_total');
  });

  it('labels only configured clusters by name', () => {
    const metrics = createMetrics({ clusters: ['dev', 'prod'], defaultMetrics: false });
    expect(metrics.clusterLabel('dev')).toBe('dev');
    expect(metrics.clusterLabel('attacker-chosen')).toBe(OTHER_CLUSTER);
  });

  it('counts unannounced changes by configured cluster and kind, one series however many namespaces', async () => {
    const metrics = createMetrics({ clusters: ['dev'], defaultMetrics: false });
    metrics.observeUnannounced('dev', 'HelmRelease');
    metrics.observeUnannounced('dev', 'HelmRelease');
    metrics.observeUnannounced('unconfigured', 'Kustomization');
    const text = await metrics.registry.metrics();
    const lines = text
      .split('\n')
      .filter((l) => l.startsWith('promotion_gateway_unannounced_changes_total{'));
    expect(lines.sort()).toEqual(
      [
        'promotion_gateway_unannounced_changes_total{cluster="dev",kind="HelmRelease"} 2',
        `promotion_gateway_unannounced_changes_total{cluster="${OTHER_CLUSTER}",kind="Kustomization"} 1`,
      ].sort(),
    );
  });
});

describe('the gauges the alerts read', () => {
  it('reads readiness and claims past deadline at scrape time, 0 until a source is bound', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const before = await metrics.registry.metrics();
    expect(before).toContain('promotion_gateway_ready 0');
    expect(before).toContain('promotion_gateway_claims_past_deadline 0');
    let ready = true;
    metrics.bindSources({
      hintQueueDepth: () => 0,
      pipelines: () => 0,
      referencedObjects: () => 0,
      ready: () => ready,
      claimsPastDeadline: () => 3,
    });
    const text = await metrics.registry.metrics();
    expect(text).toContain('promotion_gateway_ready 1');
    expect(text).toContain('promotion_gateway_claims_past_deadline 3');
    ready = false;
    expect(await metrics.registry.metrics()).toContain('promotion_gateway_ready 0');
  });

  it('exports the resync interval it is given, in seconds', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    metrics.resyncInterval.set(300);
    expect(await metrics.registry.metrics()).toContain(
      'promotion_gateway_resync_interval_seconds 300',
    );
  });
});
