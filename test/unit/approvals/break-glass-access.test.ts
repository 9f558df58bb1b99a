/**
 * What the authorizer judges of a break-glass before recording it: enabled and allowed (else a
 * Forbidden answer saying which), and held by a halt or a window at exactly that revision
 * (else a NotWaiting answer saying what holds it, or that nothing does).
 */
import { describe, expect, it } from 'vitest';
import { breakGlassRefusal, breakGlassWaiting } from '../../../src/approvals/break-glass-access.js';
import type { EnvironmentDecision } from '../../../src/evaluate/decisions.js';
import type { Pipeline } from '../../../src/pipeline/pipeline-resource.js';
import { authorization } from '../../support/evaluate-builders.js';

const POLICY = { minApprovals: 2, approvers: ['alice', 'group:sre'], validForSeconds: 3600 };

const pipeline = (prodApprovers?: string[]): Pipeline => ({
  apiVersion: 'pipelines.weave.works/v1alpha1',
  kind: 'Pipeline',
  metadata: { name: 'podinfo', namespace: 'apps' },
  spec: {
    appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
    environments: [
      { name: 'dev', targets: [{ namespace: 'apps' }] },
      {
        name: 'prod',
        targets: [{ namespace: 'apps' }],
        ...(prodApprovers === undefined
          ? {}
          : {
              promotion: {
                strategy: { notification: {} },
                breakGlass: { approvers: prodApprovers },
              },
            }),
      },
    ],
  },
});

const glass = (principal: string, groups?: string[]) =>
  authorization('2.0.0', {
    principal,
    decision: 'break-glass',
    ...(groups === undefined ? {} : { groups }),
  });

describe('who may break the glass', () => {
  it('nobody while the operator has not enabled it', () => {
    expect(breakGlassRefusal(undefined, pipeline(), 'prod', glass('alice'))).toContain(
      'break-glass is not enabled',
    );
    const empty = { ...POLICY, approvers: [] };
    expect(breakGlassRefusal(empty, pipeline(), 'prod', glass('alice'))).toContain(
      'approvals.breakGlass.approvers',
    );
  });

  it('the operator’s list, by name or group; both lists where the environment has one', () => {
    expect(breakGlassRefusal(POLICY, pipeline(), 'prod', glass('alice'))).toBeUndefined();
    expect(
      breakGlassRefusal(POLICY, pipeline(), 'prod', glass('oidc:x#dave', ['sre'])),
    ).toBeUndefined();
    expect(breakGlassRefusal(POLICY, pipeline(), 'prod', glass('mallory'))).toBe(
      'mallory may not break the glass for prod (approvals.breakGlass.approvers and its promotion.breakGlass.approvers must both allow them)',
    );
    expect(breakGlassRefusal(POLICY, pipeline(['bob']), 'prod', glass('alice'))).toContain(
      'alice may not break the glass',
    );
  });

  it('a CI principal only where named', () => {
    const ci = { ...glass('ci:e2e'), kind: 'ci' as const };
    expect(breakGlassRefusal(POLICY, pipeline(), 'prod', ci)).toContain('may not');
    const named = { ...POLICY, approvers: [...POLICY.approvers, 'ci:e2e'] };
    expect(breakGlassRefusal(named, pipeline(), 'prod', ci)).toBeUndefined();
  });
});

describe('what a break-glass can count for', () => {
  const decision = (fields: Partial<EnvironmentDecision>): EnvironmentDecision => ({
    environment: 'prod',
    outcome: 'Waiting',
    revision: '2.0.0',
    reason: 'Halted',
    message: 'prod waits: prod is halted by carol',
    ...fields,
  });

  it.each(['Halted', 'InDenyWindow', 'OutsidePromotionWindow'])(
    'an environment %s at exactly that revision',
    (reason) => {
      expect(breakGlassWaiting(decision({ reason }), '2.0.0', 'prod')).toBeUndefined();
    },
  );

  it('not another revision than the one held', () => {
    expect(breakGlassWaiting(decision({}), '1.9.0', 'prod')).toBe(
      'prod is held at 2.0.0, not 1.9.0',
    );
  });

  it.each([
    ['Soaking', 'Waiting'],
    ['CheckFailed', 'Waiting'],
    ['InvalidPromotionWindow', 'Waiting'],
    ['ApprovalRequired', 'WaitingApproval'],
    ['UpstreamReady', 'Promote'],
    ['Deployed', 'UpToDate'],
  ] as const)('not an environment that is %s', (reason, outcome) => {
    expect(breakGlassWaiting(decision({ reason, outcome }), '2.0.0', 'prod')).toMatch(
      new RegExp(`^prod is not held by a halt or a promotion window \\(${reason}: `),
    );
  });

  it('not an environment the Pipeline does not have', () => {
    expect(breakGlassWaiting(undefined, '2.0.0', 'qa')).toBe('qa is not in the Pipeline');
  });
});
