/** The trains' table of `status`: one row per train and gated environment. */
import { describe, expect, it } from 'vitest';
import { renderTrains } from '../../../src/cli/train-view.js';
import type { PromotionTrain } from '../../../src/trains/train-resource.js';

const DIGEST = `sha256:${'9f2c1a07b3e4'.padEnd(64, '0')}`;

function train(status: PromotionTrain['status']): PromotionTrain {
  return {
    apiVersion: 'pipelines.promotion-gateway.dev/v1alpha1',
    kind: 'PromotionTrain',
    metadata: { name: 'shop', namespace: 'shop' },
    spec: { members: [{ name: 'api' }, { name: 'web' }] },
    ...(status === undefined ? {} : { status }),
  };
}

describe('the trains table', () => {
  it('shows each environment release: members by name, digest, state, what it waits for', () => {
    const text = renderTrains([
      train({
        environments: [
          { name: 'staging' },
          {
            name: 'prod',
            release: {
              digest: DIGEST,
              members: { web: '5.1.0', api: '2.4.0' },
              state: 'Promoting',
              startedAt: '2026-12-07T15:20:00Z',
              waitingFor: ['web'],
            },
          },
        ],
      }),
    ]);
    expect(text.split('\n')).toEqual([
      '',
      'TRAIN      ENVIRONMENT  STATE      COMBINATION                                 WAITING',
      'shop/shop  staging      -          -',
      'shop/shop  prod         Promoting  api=2.4.0 web=5.1.0 (sha256:9f2c1a07b3e4…)  web',
      '',
    ]);
  });

  it('names the members a failed release rolled back after the one that failed', () => {
    const text = renderTrains([
      train({
        environments: [
          {
            name: 'prod',
            release: {
              digest: DIGEST,
              members: { web: '5.1.0', api: '2.4.0' },
              state: 'Failed',
              startedAt: '2026-12-07T15:20:00Z',
              waitingFor: ['web'],
              rolledBack: ['api'],
            },
          },
        ],
      }),
    ]);
    expect(text.split('\n')[2]).toBe(
      'shop/shop  prod         Failed  api=2.4.0 web=5.1.0 (sha256:9f2c1a07b3e4…)  web; rolled back: api',
    );
  });

  it('prints nothing without a train that has a status', () => {
    expect(renderTrains([])).toBe('');
    expect(renderTrains([train(undefined)])).toBe('');
  });

  it('shows a train the gateway does not use as one row saying why', () => {
    const refused = train({
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'MemberInAnotherTrain',
          message: 'api is a member of shop/first, which came first',
          lastTransitionTime: '2026-12-07T15:20:00Z',
        },
      ],
      environments: [{ name: 'prod' }],
    });
    expect(renderTrains([refused]).split('\n')).toEqual([
      '',
      'TRAIN      ENVIRONMENT  STATE     COMBINATION                                                            WAITING',
      'shop/shop  -            NotReady  MemberInAnotherTrain: api is a member of shop/first, which came first',
      '',
    ]);
  });
});
