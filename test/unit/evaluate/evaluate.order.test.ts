/**
 * What the stored records hold an environment to: one attempt at a time (a claim of any revision
 * before its deadline), never an older revision over a newer one (by when the upstream first ran
 * each), and drift (the targets run another revision than the last successful promotion).
 */
import { describe, it } from 'vitest';
import type { EnvironmentStatus } from '../../../src/pipeline/pipeline-resource.js';
import {
  MINUTE,
  NOW,
  at,
  devProd,
  expectCase,
  record,
  type Case,
} from '../../support/evaluate-builders.js';

/** dev first ran 1.0.1 at NOW - 10 min, 1.0.2 at NOW - 5 min. */
const FIRST = { '1.0.1': NOW - 10 * MINUTE, '1.0.2': NOW - 5 * MINUTE } as const;
const firstVerified = (devRev: keyof typeof FIRST) => ({ dev: FIRST[devRev] });
const history = (prod: Pick<EnvironmentStatus, 'history' | 'verified'>) => ({ prod });

function claimCases(): Case[] {
  return [
    {
      name: 'a live claim of another revision: prod waits for it to end, until its deadline',
      input: devProd('1.0.2', '1.0.0', {
        records: {
          prod: record({
            revision: '1.0.1',
            phase: 'Claimed',
            claimedBy: 'gw-b',
            lastAttemptedTime: at(-2_000),
            deadlineTime: at(13_000),
          }),
        },
      }),
      env: 'prod',
      want: {
        outcome: 'Waiting',
        reason: 'PromotionInProgress',
        revision: '1.0.2',
        retryAt: NOW + 13_000,
        message: `prod waits for the attempt promoting 1.0.1 (claimed at ${at(-2_000)} by gw-b) to end, ${at(13_000)} at the latest; then 1.0.2 is decided`,
      },
    },
    {
      name: 'a claim of the same revision before its deadline: in progress until then',
      input: devProd('1.0.1', '1.0.0', {
        records: {
          prod: record({ revision: '1.0.1', phase: 'Claimed', deadlineTime: at(13_000) }),
        },
      }),
      env: 'prod',
      want: { outcome: 'AlreadyPromoted', reason: 'PromotionInProgress', retryAt: NOW + 13_000 },
    },
    {
      name: 'a claim past its deadline holds nothing: the same revision is retried',
      input: devProd('1.0.1', '1.0.0', {
        records: {
          prod: record({
            revision: '1.0.1',
            phase: 'Claimed',
            lastAttemptedTime: at(-10 * MINUTE),
            deadlineTime: at(-1),
          }),
        },
      }),
      env: 'prod',
      want: { outcome: 'Promote', reason: 'RetryAfterFailure', attempt: 2 },
    },
    {
      name: 'a claim without a deadline (an older writer) holds for the claim timeout',
      input: devProd('1.0.2', '1.0.0', {
        records: {
          prod: record({ revision: '1.0.1', phase: 'Claimed', lastAttemptedTime: at(-MINUTE) }),
        },
      }),
      env: 'prod',
      want: { outcome: 'Waiting', reason: 'PromotionInProgress', retryAt: NOW + 14 * MINUTE },
    },
  ];
}

function orderCases(): Case[] {
  const promoted102 = {
    revision: '1.0.2',
    phase: 'Succeeded' as const,
    succeeded: true,
    upstreamVerifiedTime: new Date(FIRST['1.0.2']).toISOString(),
  };
  return [
    {
      name: 'the record shows a newer revision succeeded: an older one upstream is not promoted',
      input: devProd('1.0.1', '1.0.2', {
        records: { prod: record(promoted102) },
        firstVerified: firstVerified('1.0.1'),
      }),
      env: 'prod',
      want: {
        outcome: 'Waiting',
        reason: 'NewerRevisionPromoted',
        revision: '1.0.1',
        message:
          'prod keeps 1.0.2: dev runs 1.0.1, which it ran before 1.0.2, and an older revision is never promoted over a newer one; prod waits for a newer revision',
      },
    },
    {
      name: 'a newer revision in the history counts as much as the record',
      input: devProd('1.0.1', '1.0.0', {
        records: { prod: record({ revision: '1.0.3', phase: 'Failed', retryable: false }) },
        histories: history({
          history: [
            {
              revision: '1.0.2',
              startedTime: at(-4 * MINUTE),
              attempts: 1,
              succeededTime: at(-3 * MINUTE),
              upstreamVerifiedTime: new Date(FIRST['1.0.2']).toISOString(),
            },
          ],
        }),
        firstVerified: firstVerified('1.0.1'),
      }),
      env: 'prod',
      want: { outcome: 'Waiting', reason: 'NewerRevisionPromoted' },
    },
    {
      name: 'a newer revision upstream is promoted over the record, with its place in the order',
      input: devProd('1.0.2', '1.0.1', {
        records: {
          prod: record({
            revision: '1.0.1',
            phase: 'Succeeded',
            succeeded: true,
            upstreamVerifiedTime: new Date(FIRST['1.0.1']).toISOString(),
          }),
        },
        firstVerified: firstVerified('1.0.2'),
      }),
      env: 'prod',
      want: { outcome: 'Promote', attempt: 1, upstreamVerifiedAt: FIRST['1.0.2'] },
    },
    {
      name: 'a record without an order (an older writer) holds nothing back',
      input: devProd('1.0.1', '1.0.0', {
        records: { prod: record({ revision: '1.0.2', phase: 'Succeeded', succeeded: true }) },
        firstVerified: firstVerified('1.0.1'),
      }),
      env: 'prod',
      want: { outcome: 'Promote' },
    },
    {
      name: 'dev and prod both went back behind a newer success: a drift, not up to date',
      input: devProd('1.0.1', '1.0.1', {
        records: { prod: record(promoted102) },
        firstVerified: firstVerified('1.0.1'),
        histories: history({ verified: [{ revision: '1.0.2', time: at(-4 * MINUTE) }] }),
      }),
      env: 'prod',
      want: {
        outcome: 'Drifted',
        reason: 'Drifted',
        revision: '1.0.2',
        drift: { promoted: '1.0.2', running: ['1.0.1'], arrived: true },
      },
    },
  ];
}

function driftCases(): Case[] {
  const succeeded = (attempt = 1) =>
    record({
      revision: '1.0.1',
      phase: 'Succeeded',
      succeeded: true,
      attempt,
      lastAttemptedTime: at(-40 * MINUTE),
    });
  const ranIt = history({
    history: [
      {
        revision: '1.0.1',
        startedTime: at(-40 * MINUTE),
        attempts: 1,
        succeededTime: at(-40 * MINUTE),
      },
    ],
    verified: [{ revision: '1.0.1', time: at(-39 * MINUTE) }],
  });
  const recent = history({
    history: [
      { revision: '1.0.1', startedTime: at(-MINUTE), attempts: 1, succeededTime: at(-MINUTE) },
    ],
  });
  return [
    {
      name: 'promoted a minute ago and not arrived: still rolling out, looked at at the timeout',
      input: devProd('1.0.1', '1.0.0', { records: { prod: succeeded() }, histories: recent }),
      env: 'prod',
      want: {
        outcome: 'AlreadyPromoted',
        reason: 'PromotionSucceeded',
        retryAt: NOW + 29 * MINUTE,
      },
    },
    {
      name: 'never arrived within the rollout timeout: promoted again as a new attempt (default)',
      input: devProd('1.0.1', '1.0.0', { records: { prod: succeeded() } }),
      env: 'prod',
      want: {
        outcome: 'Promote',
        reason: 'DriftCorrection',
        attempt: 2,
        drift: { promoted: '1.0.1', running: ['1.0.0'], arrived: false },
        redelivery: 1,
      },
    },
    {
      name: "a correction's retry is the same redelivery",
      input: devProd('1.0.1', '1.0.0', {
        records: {
          prod: record({
            revision: '1.0.1',
            phase: 'Failed',
            attempt: 2,
            redelivery: 1,
            lastAttemptedTime: at(-10 * MINUTE),
          }),
        },
      }),
      env: 'prod',
      want: { outcome: 'Promote', reason: 'RetryAfterFailure', attempt: 3, redelivery: 1 },
    },
    {
      name: 'ran it, then left it: reported, not fought (default)',
      input: devProd('1.0.1', '1.0.0', { records: { prod: succeeded() }, histories: ranIt }),
      env: 'prod',
      want: {
        outcome: 'Drifted',
        reason: 'Drifted',
        drift: { promoted: '1.0.1', running: ['1.0.0'], arrived: true },
        message: `prod runs 1.0.0, not 1.0.1 whose promotion succeeded at ${at(-40 * MINUTE)} (it ran it, then left it); reported, not corrected (it ran it and then left it, which is not fought)`,
      },
    },
    {
      name: 'mode Correct: ran it, then left it, promoted again',
      input: devProd('1.0.1', '1.0.0', {
        records: { prod: succeeded() },
        histories: ranIt,
        promotion: { strategy: { notification: {} }, drift: { mode: 'Correct' } },
      }),
      env: 'prod',
      want: { outcome: 'Promote', reason: 'DriftCorrection', attempt: 2 },
    },
    {
      name: 'mode Warn: never arrived, reported only',
      input: devProd('1.0.1', '1.0.0', {
        records: { prod: succeeded() },
        promotion: { strategy: { notification: {} }, drift: { mode: 'Warn' } },
      }),
      env: 'prod',
      want: {
        outcome: 'Drifted',
        drift: { promoted: '1.0.1', running: ['1.0.0'], arrived: false },
      },
    },
    {
      name: 'a shorter rollout timeout is honoured',
      input: devProd('1.0.1', '1.0.0', {
        records: { prod: succeeded() },
        histories: recent,
        promotion: { strategy: { notification: {} }, drift: { rolloutTimeout: '30s' } },
      }),
      env: 'prod',
      want: { outcome: 'Promote', reason: 'DriftCorrection' },
    },
    {
      name: 'the retry budget spent: reported',
      input: devProd('1.0.1', '1.0.0', { records: { prod: succeeded(3) } }),
      env: 'prod',
      want: { outcome: 'Drifted', reason: 'Drifted' },
    },
  ];
}

describe('evaluate: what the records hold an environment to', () => {
  it.each(claimCases())('$name', (c) => {
    expectCase(c);
  });
  it.each(orderCases())('$name', (c) => {
    expectCase(c);
  });
  it.each(driftCases())('$name', (c) => {
    expectCase(c);
  });
});
