import { describe, expect, it } from 'vitest';
import { createMetrics, OTHER_CLUSTER } from '../../src/metrics.js';

describe('createMetrics', () => {
  it('gives every gateway its own registry', async () => {
    const a = createMetrics({ defaultMetrics: false });
    const b = createMetrics({ defaultMetrics: false });
    a.eventsReceived.inc({ outcome: 'accepted' });
    a.queueDepth.set(7);
    expect(await a.registry.metrics()).toContain(
      'promotion_gateway_events_received_total{outcome="accepted"} 1',
    );
    expect(await a.registry.metrics()).toContain('promotion_gateway_hint_queue_depth 7');
    expect(await b.registry.metrics()).not.toContain('outcome="accepted"');
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
});
