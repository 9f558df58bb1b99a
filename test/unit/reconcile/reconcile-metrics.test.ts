import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import type { EnvironmentDecision } from '../../../src/evaluate/decisions.js';
import {
  countDecisions,
  MAX_ENVIRONMENT_LABELS,
  OTHER_ENVIRONMENTS,
  reconcileMetrics,
} from '../../../src/reconcile/reconcile-metrics.js';
import { reconcileRig } from '../../support/reconcile-rig.js';

function decision(outcome: string, reason: string): EnvironmentDecision {
  return { environment: 'prod', outcome, reason, message: '' } as EnvironmentDecision;
}

describe('reconcileMetrics', () => {
  it('counts the current decisions by outcome and reason at each scrape, dropping what is gone', async () => {
    const registry = new Registry();
    let lists: EnvironmentDecision[][] = [
      [decision('Source', 'Ready'), decision('Waiting', 'Soaking')],
      [decision('Source', 'Ready'), decision('Waiting', 'Soaking')],
    ];
    reconcileMetrics(registry, () => lists);
    const text = await registry.metrics();
    expect(text).toContain('promotion_gateway_decisions{outcome="Waiting",reason="Soaking"} 2');
    expect(text).toContain('promotion_gateway_decisions{outcome="Source",reason="Ready"} 2');
    lists = [[decision('UpToDate', 'Deployed')]];
    const later = await registry.metrics();
    expect(later).toContain('promotion_gateway_decisions{outcome="UpToDate",reason="Deployed"} 1');
    expect(later).not.toContain('reason="Soaking"');
  });

  it('records lead times in a histogram of seconds', async () => {
    const registry = new Registry();
    reconcileMetrics(registry, () => []).observeLeadTime(90);
    const text = await registry.metrics();
    expect(text).toContain('promotion_gateway_promotion_lead_time_seconds_count 1');
    expect(text).toContain('promotion_gateway_promotion_lead_time_seconds_bucket{le="60"} 0');
    expect(text).toContain('promotion_gateway_promotion_lead_time_seconds_bucket{le="300"} 1');
  });

  it('counts promotions per environment name, the names past the cap as other', async () => {
    const registry = new Registry();
    const metrics = reconcileMetrics(registry, () => []);
    metrics.countPromoted('prod');
    metrics.countPromoted('prod');
    for (let i = 0; i < MAX_ENVIRONMENT_LABELS; i++) metrics.countPromoted(`env-${String(i)}`);
    const text = await registry.metrics();
    expect(text).toContain('promotion_gateway_environment_promotions_total{environment="prod"} 2');
    // prod took one of the places: the last name seen is counted as other.
    const last = `env-${String(MAX_ENVIRONMENT_LABELS - 1)}`;
    expect(text).not.toContain(`environment="${last}"`);
    expect(text).toContain(
      `promotion_gateway_environment_promotions_total{environment="${OTHER_ENVIRONMENTS}"} 1`,
    );
    const series = text.split('\n').filter((l) => l.startsWith('promotion_gateway_environment_'));
    expect(series).toHaveLength(MAX_ENVIRONMENT_LABELS + 1);
  });

  it('counts nothing for no Pipelines', () => {
    expect(countDecisions([])).toEqual(new Map());
  });
});

describe('the reconciler reports', () => {
  it('a promotion lead time from its upstream first verified to its success', async () => {
    const rig = reconcileRig({ dev: '1.9.0', staging: '1.8.0', prod: '1.8.0' });
    // The claim is written 90 s after the reads that verified dev at 1.9.0.
    rig.writer.beforeNextWrite(() => {
      rig.clock.now += 90_000;
    });
    await rig.reconciler.reconcile(rig.id);
    expect(rig.record('staging')).toMatchObject({ revision: '1.9.0', phase: 'Succeeded' });
    expect(rig.outcomes).toContain('Promoted');
    expect(rig.leadTimes).toEqual([90]);
    expect(rig.promotedIn).toEqual(['staging']);
  });

  it('the decisions of every Pipeline it evaluated', async () => {
    const rig = reconcileRig({ dev: '1.9.0', staging: '1.9.0', prod: '1.9.0' });
    await rig.reconciler.reconcile(rig.id);
    const lists = [...rig.reconciler.decisions()];
    expect(lists).toHaveLength(1);
    expect(lists[0]?.map((d) => d.environment)).toEqual(['dev', 'staging', 'prod']);
  });
});
