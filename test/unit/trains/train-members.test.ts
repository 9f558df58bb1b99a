/** A train's members and gated environments, resolved against its namespace's Pipelines. */
import { describe, expect, it } from 'vitest';
import { resolveTrain, upstreamOf } from '../../../src/trains/train-members.js';
import type { PromotionTrain, TrainSpec } from '../../../src/trains/train-resource.js';

function train(spec: TrainSpec): PromotionTrain {
  return {
    apiVersion: 'pipelines.promotion-gateway.dev/v1alpha1',
    kind: 'PromotionTrain',
    metadata: { name: 'release', namespace: 'shop' },
    spec,
  };
}

const pipelines = [
  { name: 'api', labels: { train: 'shop' }, environments: ['dev', 'staging', 'prod'] },
  { name: 'web', labels: { train: 'shop' }, environments: ['dev', 'staging', 'prod'] },
  { name: 'worker', environments: ['staging', 'prod'] },
];

describe('resolving a train', () => {
  it('finds listed members, names the missing ones, gates every shared non-source env', () => {
    const resolved = resolveTrain(
      train({ members: [{ name: 'web', dependsOn: ['api'] }, { name: 'api' }, { name: 'gone' }] }),
      () => pipelines,
    );
    expect(resolved.members.map((m) => m.name)).toEqual(['web', 'api']);
    expect(resolved.missing).toEqual(['gone']);
    expect(resolved.environments).toEqual(['staging', 'prod']);
  });

  it('never gates a member source: staging is worker source', () => {
    const resolved = resolveTrain(
      train({ members: [{ name: 'api' }, { name: 'worker' }] }),
      () => pipelines,
    );
    expect(resolved.environments).toEqual(['prod']);
  });

  it('selects members by labels, by name order, and keeps to spec.environments', () => {
    const resolved = resolveTrain(
      train({ selector: { matchLabels: { train: 'shop' } }, environments: ['prod'] }),
      () => pipelines,
    );
    expect(resolved.members).toEqual([{ name: 'api' }, { name: 'web' }]);
    expect(resolved.environments).toEqual(['prod']);
  });

  it('names each member upstream of an environment', () => {
    expect(upstreamOf(['dev', 'staging', 'prod'], 'prod')).toBe('staging');
    expect(upstreamOf(['dev', 'staging', 'prod'], 'dev')).toBeUndefined();
  });
});
