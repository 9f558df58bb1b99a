/**
 * A revision not of its kind makes the target Unknown (InvalidRevision), whatever its health,
 * with the value quoted safely; the evaluator then decides nothing downstream of it.
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../../src/evaluate/evaluate.js';
import { targetStatusFromObject } from '../../../src/verify/target-status.js';
import { build, healthy } from '../../support/evaluate-builders.js';
import { LOCATION, READY_HR, READY_KS, edited } from '../../support/flux-objects.js';

const SHA1 = '450796ddb2ab6724ee1cc32a4be56da032d1cca0';

/** READY_HR whose newest deployed entry reports `chartVersion`. */
function releaseAt(chartVersion: unknown) {
  return edited(READY_HR, (o) => (o.status!.history![0]!.chartVersion = chartVersion));
}

describe('targetStatusFromObject: invalid revisions', () => {
  it.each([
    [
      '6.9.0; rm -rf /',
      'HelmRelease podinfo reports chart version "6.9.0; rm -rf /", which is not a SemVer 2 version',
    ],
    [
      'banana',
      'HelmRelease podinfo reports chart version "banana", which is not a SemVer 2 version',
    ],
    [
      'v6.9.0',
      'HelmRelease podinfo reports chart version "v6.9.0", which is not a SemVer 2 version',
    ],
    [
      '6.6.1\nforged',
      'HelmRelease podinfo reports chart version "6.6.1\\u000Aforged", which is not a SemVer 2 version',
    ],
    [661, 'HelmRelease podinfo reports a chart version that is not text (number)'],
  ])('a HelmRelease at %j is Unknown: %s', (chartVersion, message) => {
    expect(targetStatusFromObject(releaseAt(chartVersion), LOCATION)).toEqual({
      location: LOCATION,
      health: 'Unknown',
      reason: 'InvalidRevision',
      message,
    });
  });

  it('quotes at most 64 characters of a long value, and the message stays bounded', () => {
    const got = targetStatusFromObject(releaseAt(`6.${'9'.repeat(300)}`), LOCATION);
    expect(got).toMatchObject({ health: 'Unknown', reason: 'InvalidRevision' });
    expect(got.message).toBe(
      `HelmRelease podinfo reports chart version "6.${'9'.repeat(62)}"…, which is not a SemVer 2 version`,
    );
  });

  it('is Unknown even when the release is otherwise unhealthy: nothing about it can be told', () => {
    const obj = edited('helmrelease-upgrade-failed-rolled-back.yaml', (o) => {
      for (const entry of o.status!.history!) entry.chartVersion = '6.6.1 && curl evil';
    });
    const got = targetStatusFromObject(obj, LOCATION);
    expect(got).toMatchObject({ health: 'Unknown', reason: 'InvalidRevision' });
    expect(got.revision).toBeUndefined();
  });

  it('only the newest deployed entry counts: an odd superseded one is history', () => {
    const obj = edited(READY_HR, (o) => (o.status!.history![1]!.chartVersion = 'banana'));
    expect(targetStatusFromObject(obj, LOCATION)).toMatchObject({
      health: 'Healthy',
      revision: '6.6.1+0cc9a8446c95',
    });
  });

  it('HelmRelease v2beta1 checks lastAppliedRevision as a chart version', () => {
    const at = (revision: string) =>
      targetStatusFromObject(
        edited(READY_HR, (o) => {
          o.apiVersion = 'helm.toolkit.fluxcd.io/v2beta1';
          o.status!.lastAppliedRevision = revision;
        }),
        LOCATION,
      );
    expect(at('6.5.0')).toMatchObject({ health: 'Healthy', revision: '6.5.0' });
    expect(at(`main@sha1:${SHA1}`)).toMatchObject({
      health: 'Unknown',
      reason: 'InvalidRevision',
      message: `HelmRelease podinfo reports chart version "main@sha1:${SHA1}", which is not a SemVer 2 version`,
    });
  });

  it.each(['kustomize.toolkit.fluxcd.io/v1', 'kustomize.toolkit.fluxcd.io/v1beta2'])(
    'a %s Kustomization checks lastAppliedRevision as a source revision',
    (apiVersion) => {
      const at = (revision: string) =>
        targetStatusFromObject(
          edited(READY_KS, (o) => {
            o.apiVersion = apiVersion;
            o.status!.lastAppliedRevision = revision;
          }),
          LOCATION,
        );
      expect(at(`main/${SHA1}`)).toMatchObject({ health: 'Healthy', revision: `main/${SHA1}` });
      expect(at('6.6.0')).toMatchObject({ health: 'Unknown', reason: 'InvalidRevision' });
      expect(at(`main@sha1:${SHA1}; rm -rf /`)).toEqual({
        location: LOCATION,
        health: 'Unknown',
        reason: 'InvalidRevision',
        message:
          `Kustomization podinfo reports applied revision "main@sha1:${SHA1}; rm -rf /", ` +
          'which is not a source revision Flux writes (such as main@sha1:<40 hex>)',
      });
    },
  );
});

describe('the evaluator on an InvalidRevision target', () => {
  it('decides nothing downstream: staging is Unknown, no promotion', () => {
    const dev = targetStatusFromObject(releaseAt('6.9.0; rm -rf /'), LOCATION);
    const evaluation = evaluate(
      build([
        { name: 'dev', statuses: [dev] },
        { name: 'staging', statuses: [healthy('6.5.0')] },
        { name: 'prod', statuses: [healthy('6.5.0')] },
      ]),
    );
    const byEnv = new Map(evaluation.decisions.map((d) => [d.environment, d]));
    expect(byEnv.get('staging')).toMatchObject({ outcome: 'Unknown', reason: 'UpstreamUnknown' });
    expect(byEnv.get('prod')).toMatchObject({ outcome: 'Unknown', reason: 'UpstreamUnknown' });
    expect(evaluation.decisions.some((d) => d.outcome === 'Promote')).toBe(false);
    expect(JSON.stringify(evaluation)).not.toContain('rm -rf');
  });
});
