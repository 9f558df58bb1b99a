import { describe, expect, it } from 'vitest';
import type { ReadFailureReason } from '../../../src/kube/ports.js';
import {
  targetStatusFromFailure,
  targetStatusFromObject,
} from '../../../src/verify/target-status.js';
import { revisionSourceOf } from '../../../src/pipeline/flux-kinds.js';
import { LOCATION, READY_HR, READY_KS, edited } from '../../support/flux-objects.js';

describe('targetStatusFromObject: revisions', () => {
  it('v2beta2 reads the history too', () => {
    const obj = edited(READY_HR, (o) => (o.apiVersion = 'helm.toolkit.fluxcd.io/v2beta2'));
    expect(targetStatusFromObject(obj, LOCATION)).toMatchObject({
      health: 'Healthy',
      revision: '6.6.1+0cc9a8446c95',
    });
  });

  it('v2beta2 ignores lastAppliedRevision: no deployed history entry is NoDeployedRelease', () => {
    const obj = edited(READY_HR, (o) => {
      o.apiVersion = 'helm.toolkit.fluxcd.io/v2beta2';
      o.status!.lastAppliedRevision = '6.6.1';
      delete o.status!.history;
    });
    expect(targetStatusFromObject(obj, LOCATION)).toMatchObject({
      health: 'Unhealthy',
      reason: 'NoDeployedRelease',
    });
  });

  it('v2beta1 reads lastAppliedRevision and ignores history', () => {
    const obj = edited(READY_HR, (o) => {
      o.apiVersion = 'helm.toolkit.fluxcd.io/v2beta1';
      o.status!.lastAppliedRevision = '6.5.0';
    });
    expect(targetStatusFromObject(obj, LOCATION)).toMatchObject({
      health: 'Healthy',
      revision: '6.5.0',
    });
  });

  it('v2beta1 without lastAppliedRevision is NoAppliedRevision', () => {
    const obj = edited(READY_HR, (o) => (o.apiVersion = 'helm.toolkit.fluxcd.io/v2beta1'));
    expect(targetStatusFromObject(obj, LOCATION)).toMatchObject({
      health: 'Unhealthy',
      reason: 'NoAppliedRevision',
    });
  });

  it('a history with no deployed entry is NoDeployedRelease', () => {
    const obj = edited(READY_HR, (o) => {
      o.status!.history![0]!.status = 'failed';
      o.status!.history![1]!.status = 'superseded';
    });
    const got = targetStatusFromObject(obj, LOCATION);
    expect(got).toMatchObject({ health: 'Unhealthy', reason: 'NoDeployedRelease' });
    expect(got.revision).toBeUndefined();
  });

  it('an otherwise failing release with no deployed entry keeps the more telling reason', () => {
    const got = targetStatusFromObject(
      edited(
        'helmrelease-install-test-failed-stalled.yaml',
        (o) => (o.status!.history![0]!.status = 'failed'),
      ),
      LOCATION,
    );
    expect(got).toMatchObject({ health: 'Unhealthy', reason: 'Stalled' });
    expect(got.revision).toBeUndefined();
  });

  it('picks the highest version even when the history is oldest-first', () => {
    const obj = edited(READY_HR, (o) => {
      o.status!.history!.reverse();
      o.status!.history![0]!.status = 'deployed';
    });
    expect(targetStatusFromObject(obj, LOCATION).revision).toBe('6.6.1+0cc9a8446c95');
  });

  it('falls back to list order when a deployed entry has no version', () => {
    const obj = edited(READY_HR, (o) => {
      o.status!.history!.reverse();
      o.status!.history![0]!.status = 'deployed';
      delete o.status!.history![1]!.version;
    });
    expect(targetStatusFromObject(obj, LOCATION).revision).toBe('6.6.0+cdd538a0167e');
  });

  it('an empty chart version is no revision (Flux omits an empty field)', () => {
    const obj = edited(READY_HR, (o) => (o.status!.history![0]!.chartVersion = ''));
    const got = targetStatusFromObject(obj, LOCATION);
    expect(got).toMatchObject({ health: 'Unhealthy', reason: 'NoDeployedRelease' });
    expect(got.revision).toBeUndefined();
  });

  it('a Kustomization without lastAppliedRevision is NoAppliedRevision', () => {
    const obj = edited(READY_KS, (o) => delete o.status!.lastAppliedRevision);
    expect(targetStatusFromObject(obj, LOCATION)).toMatchObject({
      health: 'Unhealthy',
      reason: 'NoAppliedRevision',
    });
  });

  it('Kustomization v1beta2 is read like v1', () => {
    const obj = edited(READY_KS, (o) => (o.apiVersion = 'kustomize.toolkit.fluxcd.io/v1beta2'));
    expect(targetStatusFromObject(obj, LOCATION)).toMatchObject({
      health: 'Healthy',
      revision: 'v1.0.1@sha1:450796ddb2ab6724ee1cc32a4be56da032d1cca0',
    });
  });
});

describe('unsupported kinds and failures', () => {
  it.each([
    ['apps/v1', 'Deployment'],
    ['helm.toolkit.fluxcd.io/v3', 'HelmRelease'],
    ['kustomize.toolkit.fluxcd.io/v1', 'HelmRelease'],
    ['__proto__', 'HelmRelease'],
    ['toString', 'Kustomization'],
  ])('%s %s is Unknown UnsupportedKind', (apiVersion, kind) => {
    const obj = edited(READY_HR, (o) => {
      o.apiVersion = apiVersion;
      o.kind = kind;
    });
    const got = targetStatusFromObject(obj, LOCATION);
    expect(got).toMatchObject({ health: 'Unknown', reason: 'UnsupportedKind', location: LOCATION });
    expect(got.revision).toBeUndefined();
    expect(revisionSourceOf(apiVersion, kind)).toBeUndefined();
  });

  it('revisionSourceOf knows the five supported versions', () => {
    expect(
      [
        ['helm.toolkit.fluxcd.io/v2', 'HelmRelease'],
        ['helm.toolkit.fluxcd.io/v2beta2', 'HelmRelease'],
        ['helm.toolkit.fluxcd.io/v2beta1', 'HelmRelease'],
        ['kustomize.toolkit.fluxcd.io/v1', 'Kustomization'],
        ['kustomize.toolkit.fluxcd.io/v1beta2', 'Kustomization'],
      ].every(([a, k]) => revisionSourceOf(a!, k!) !== undefined),
    ).toBe(true);
  });

  const reasons: ReadFailureReason[] = [
    'NotFound',
    'Unauthorized',
    'Forbidden',
    'ServerError',
    'Unavailable',
    'Timeout',
    'UnknownCluster',
    'UnsupportedKind',
  ];
  it.each(reasons)('a %s read failure is Unknown with that reason', (reason) => {
    const got = targetStatusFromFailure(reason, `read failed: ${reason}`, LOCATION);
    expect(got).toEqual({
      location: LOCATION,
      health: 'Unknown',
      reason,
      message: `read failed: ${reason}`,
    });
  });

  it('caps and flattens a failure message', () => {
    const got = targetStatusFromFailure('ServerError', `a\nb${'z'.repeat(1000)}`, LOCATION);
    expect(got.message.startsWith('a b')).toBe(true);
    expect(got.message.length).toBeLessThanOrEqual(257);
  });
});
