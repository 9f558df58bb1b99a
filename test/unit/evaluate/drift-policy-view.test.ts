/**
 * Drift as the policy view explains it (the API, the CLI's POLICY column and the web view's
 * policy line): the policy when the spec sets one, and the drift itself once there is one, with
 * whether the gateway will promote the recorded revision again.
 */
import { describe, expect, it } from 'vitest';
import { policyViewsOf } from '../../../src/evaluate/policy-view.js';
import { environmentRows } from '../../../src/cli/status-view.js';
import { policyLine } from '../../../src/cli/policy-line.js';
import { policyWords } from '../../../src/ui/policy-words.js';
import { samplePipeline } from '../../support/pipeline-fixtures.js';
import { MINUTE, NOW, at, devProd, record } from '../../support/evaluate-builders.js';

const succeeded = record({
  revision: '1.0.1',
  phase: 'Succeeded',
  succeeded: true,
  lastAttemptedTime: at(-40 * MINUTE),
});

describe('the drift part of the policy view', () => {
  it('is absent without a drift policy while nothing drifted', () => {
    expect(
      policyViewsOf(devProd('1.0.1', '1.0.1', { records: { prod: succeeded } })),
    ).toBeUndefined();
  });

  it('shows the policy the spec sets, with its defaults filled in', () => {
    const input = devProd('1.0.1', '1.0.1', {
      records: { prod: succeeded },
      promotion: { strategy: { notification: {} }, drift: { mode: 'Warn' } },
    });
    expect(policyViewsOf(input)?.prod?.drift).toEqual({ mode: 'Warn', rolloutTimeout: '30m' });
    expect(policyLine(policyViewsOf(input)?.prod, NOW)).toBe('drift Warn (rollout timeout 30m)');
  });

  it('shows a drift that never arrived as one the default policy corrects', () => {
    const view = policyViewsOf(devProd('1.0.1', '1.0.0', { records: { prod: succeeded } }))?.prod;
    expect(view?.drift).toEqual({
      mode: 'CorrectIfNotArrived',
      rolloutTimeout: '30m',
      drifted: { promoted: '1.0.1', running: ['1.0.0'], arrived: false },
      corrects: true,
    });
    expect(policyWords(view)).toBe('drifted: runs 1.0.0, not 1.0.1 (promoting it again)');
  });

  it('shows a revision left after it ran as reported only', () => {
    const input = devProd('1.0.1', '1.0.0', {
      records: { prod: succeeded },
      histories: { prod: { verified: [{ revision: '1.0.1', time: at(-39 * MINUTE) }] } },
    });
    expect(policyLine(policyViewsOf(input)?.prod, NOW)).toBe(
      'drifted: runs 1.0.0, not 1.0.1 (ran it, then left it; reported only), drift CorrectIfNotArrived (rollout timeout 30m)',
    );
  });
});

describe('promotion-gateway status on a drifted environment', () => {
  it('says so in the STATE column with both revisions', () => {
    const pipeline = samplePipeline({
      environments: {
        staging: {
          targets: [
            {
              clusterAppRef: { apiVersion: 'v', kind: 'HelmRelease', name: 'podinfo' },
              ready: true,
              revision: '1.0.0',
            },
          ],
          drift: { promoted: '1.0.1', running: ['1.0.0'], arrived: true, since: at(0) },
        },
      },
    });
    const row = environmentRows([pipeline], NOW).find((r) => r.environment === 'staging');
    expect(row?.state).toBe('drifted: runs 1.0.0, not 1.0.1 promoted there (ran it, then left it)');
  });
});
