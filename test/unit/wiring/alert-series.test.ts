import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/metrics.js';
import { zeroAlertSeries } from '../../../src/wiring/alert-series.js';

describe('zeroAlertSeries', () => {
  it('creates the alerted series at 0 for each configured cluster, before anything happened', async () => {
    const metrics = createMetrics({ clusters: ['management', 'prod'], defaultMetrics: false });
    zeroAlertSeries(metrics, ['management', 'prod']);
    const text = await metrics.registry.metrics();
    expect(text).toContain('promotion_gateway_promotions_total{outcome="Failed"} 0');
    expect(text).toContain('promotion_gateway_status_writes_total{result="conflict"} 0');
    expect(text).toContain('promotion_gateway_resync_duration_seconds_count{result="partial"} 0');
    expect(text).toContain(
      'promotion_gateway_cluster_reads_total{cluster="prod",result="Unauthorized"} 0',
    );
    expect(text).toContain(
      'promotion_gateway_unannounced_changes_total{cluster="management",kind="Kustomization"} 0',
    );
  });

  it('leaves later counts to add on top', async () => {
    const metrics = createMetrics({ clusters: ['prod'], defaultMetrics: false });
    zeroAlertSeries(metrics, ['prod']);
    metrics.observeUnannounced('prod', 'HelmRelease');
    metrics.promotions.inc({ outcome: 'Failed' });
    const text = await metrics.registry.metrics();
    expect(text).toContain(
      'promotion_gateway_unannounced_changes_total{cluster="prod",kind="HelmRelease"} 1',
    );
    expect(text).toContain('promotion_gateway_promotions_total{outcome="Failed"} 1');
  });
});
