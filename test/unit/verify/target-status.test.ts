import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TargetStatus } from '../../../src/evaluate/decisions.js';
import { targetStatusFromObject } from '../../../src/verify/target-status.js';
import {
  LOCATION,
  OBJECTS,
  READY_HR,
  READY_KS,
  condition,
  edited,
  fixture,
} from '../../support/flux-objects.js';

const fixtures: Record<string, Partial<TargetStatus>> = {
  'helmrelease-ready-oci-tested.yaml': {
    health: 'Healthy',
    reason: 'Ready',
    revision: '6.6.1+0cc9a8446c95',
  },
  // The rollback left 6.6.1 deployed (history version 5), but retries are exhausted.
  'helmrelease-upgrade-failed-rolled-back.yaml': {
    health: 'Unhealthy',
    reason: 'Stalled',
    revision: '6.6.1',
  },
  'helmrelease-install-test-failed-stalled.yaml': {
    health: 'Unhealthy',
    reason: 'Stalled',
    revision: '6.5.3',
  },
  'kustomization-ready.yaml': {
    health: 'Healthy',
    reason: 'Ready',
    revision: 'v1.0.1@sha1:450796ddb2ab6724ee1cc32a4be56da032d1cca0',
  },
};
describe('targetStatusFromObject: fixtures', () => {
  it('has an expectation for every fixture object', () => {
    expect(
      readdirSync(OBJECTS)
        .filter((f) => f.endsWith('.yaml'))
        .sort(),
    ).toEqual(Object.keys(fixtures).sort());
  });

  it.each(Object.entries(fixtures))('%s', (name, want) => {
    const got = targetStatusFromObject(fixture(name), LOCATION);
    expect(got).toMatchObject({ ...want, location: LOCATION });
    expect(got.message.length).toBeLessThanOrEqual(400);
    expect(got.message).not.toMatch(/[\n\t]/);
  });

  it('names the stall reason and message of the rolled-back upgrade', () => {
    const got = targetStatusFromObject(
      fixture('helmrelease-upgrade-failed-rolled-back.yaml'),
      LOCATION,
    );
    expect(got.message).toBe(
      'HelmRelease podinfo is stalled (RetriesExceeded): Failed to upgrade after 2 attempt(s)',
    );
  });

  it('describes the healthy release with its revision', () => {
    expect(targetStatusFromObject(fixture(READY_HR), LOCATION).message).toBe(
      'HelmRelease podinfo is ready at 6.6.1+0cc9a8446c95',
    );
  });

  it('does not mutate the object', () => {
    const obj = fixture(READY_HR);
    const copy = structuredClone(obj);
    targetStatusFromObject(Object.freeze(obj), LOCATION);
    expect(obj).toEqual(copy);
  });
});

describe('targetStatusFromObject: health rule', () => {
  it('Ready=True right after a spec change is StaleGeneration, revision kept', () => {
    const obj = edited(READY_HR, (o) => (o.metadata.generation = 3));
    expect(targetStatusFromObject(obj, LOCATION)).toMatchObject({
      health: 'Unhealthy',
      reason: 'StaleGeneration',
      revision: '6.6.1+0cc9a8446c95',
      message: 'HelmRelease podinfo status is for generation 2, not 3',
    });
  });

  it('a Ready condition observed for an older generation is StaleGeneration', () => {
    const obj = edited(READY_KS, (o) => (o.status!.conditions[0]!.observedGeneration = 2));
    expect(targetStatusFromObject(obj, LOCATION)).toMatchObject({
      health: 'Unhealthy',
      reason: 'StaleGeneration',
    });
  });

  it('missing metadata.generation or status.observedGeneration is StaleGeneration', () => {
    const noGeneration = edited(READY_HR, (o) => delete o.metadata.generation);
    const noObserved = edited(READY_HR, (o) => delete o.status!.observedGeneration);
    expect(targetStatusFromObject(noGeneration, LOCATION).reason).toBe('StaleGeneration');
    expect(targetStatusFromObject(noObserved, LOCATION).reason).toBe('StaleGeneration');
  });

  it('Reconciling=True is Reconciling even with a stale Ready=True', () => {
    const obj = edited(READY_HR, (o) =>
      o.status!.conditions.push(
        condition('Reconciling', 'True', 'Progressing', 'Fulfilling prerequisites'),
      ),
    );
    expect(targetStatusFromObject(obj, LOCATION)).toMatchObject({
      health: 'Unhealthy',
      reason: 'Reconciling',
      message: 'HelmRelease podinfo is reconciling (Progressing): Fulfilling prerequisites',
    });
  });

  it('Reconciling=False does not count', () => {
    const obj = edited(READY_HR, (o) =>
      o.status!.conditions.push(condition('Reconciling', 'False', 'Done')),
    );
    expect(targetStatusFromObject(obj, LOCATION).health).toBe('Healthy');
  });

  it('Stalled wins over Reconciling', () => {
    const obj = edited(READY_HR, (o) => {
      o.status!.conditions.push(condition('Reconciling', 'True', 'Progressing'));
      o.status!.conditions.push(
        condition('Stalled', 'True', 'InvalidChartReference', 'chart not found'),
      );
    });
    expect(targetStatusFromObject(obj, LOCATION).reason).toBe('Stalled');
  });

  it.each(['UpgradeFailed', 'InstallFailed', 'ArtifactFailed'])(
    'Ready=False carries its reason %s',
    (reason) => {
      const obj = edited(
        READY_HR,
        (o) => (o.status!.conditions[0] = condition('Ready', 'False', reason, 'it broke', 2)),
      );
      expect(targetStatusFromObject(obj, LOCATION)).toMatchObject({
        health: 'Unhealthy',
        reason,
        revision: '6.6.1+0cc9a8446c95',
        message: `HelmRelease podinfo is not ready (${reason}): it broke`,
      });
    },
  );

  it('Ready=Unknown is not healthy', () => {
    const obj = edited(
      READY_KS,
      (o) => (o.status!.conditions[0] = condition('Ready', 'Unknown', 'Progressing', '', 3)),
    );
    expect(targetStatusFromObject(obj, LOCATION)).toMatchObject({
      health: 'Unhealthy',
      reason: 'Progressing',
    });
  });

  it('an invalid condition reason becomes NotReady and is not echoed', () => {
    const obj = edited(
      READY_HR,
      (o) => (o.status!.conditions[0] = condition('Ready', 'False', 'no such <reason>', 'x', 2)),
    );
    const got = targetStatusFromObject(obj, LOCATION);
    expect(got.reason).toBe('NotReady');
    expect(got.message).not.toContain('<reason>');
  });

  it('caps long condition messages at 256 characters and flattens newlines', () => {
    const long = `line one\n${'y'.repeat(5000)}`;
    const obj = edited(
      READY_HR,
      (o) => (o.status!.conditions[0] = condition('Ready', 'False', 'UpgradeFailed', long, 2)),
    );
    const got = targetStatusFromObject(obj, LOCATION);
    expect(got.message).not.toContain('\n');
    expect(got.message).toContain('line one y');
    expect(got.message.length).toBeLessThan(256 + 64);
    expect(got.message.endsWith('…')).toBe(true);
  });

  it('no Ready condition is NotReady', () => {
    const obj = edited(
      READY_HR,
      (o) => (o.status!.conditions = o.status!.conditions.filter((c) => c.type !== 'Ready')),
    );
    expect(targetStatusFromObject(obj, LOCATION)).toMatchObject({
      health: 'Unhealthy',
      reason: 'NotReady',
    });
  });

  it('missing status is NotReady with no revision', () => {
    const got = targetStatusFromObject(
      edited(READY_HR, (o) => delete o.status),
      LOCATION,
    );
    expect(got).toMatchObject({ health: 'Unhealthy', reason: 'NotReady' });
    expect(got.revision).toBeUndefined();
  });

  it('garbage conditions are ignored, not trusted', () => {
    const obj = edited(
      READY_HR,
      (o) => (o.status!.conditions = [null, 'Ready', { type: 7, status: 'True' }] as never),
    );
    expect(targetStatusFromObject(obj, LOCATION).reason).toBe('NotReady');
  });
});
