import { describe, expect, it } from 'vitest';
import {
  MINUTE,
  NOW,
  POLICY,
  at,
  devProd,
  expectCase,
  record,
  type Case,
} from '../../support/evaluate-builders.js';

// The record is prod's, for dev's revision 1.0.1; `now` is NOW unless given.
const withRecord = (
  fields: Parameters<typeof record>[0] extends infer F ? Omit<F, 'revision'> : never,
  now = NOW,
  policy = POLICY,
) =>
  devProd('1.0.1', '1.0.0', {
    records: { prod: record({ revision: '1.0.1', ...fields }) },
    now,
    policy,
  });

const GITHUB = 'https://github.com/acme/fleet/pull/3';
const GITLAB = 'https://gitlab.example.com/acme/fleet/-/merge_requests/12';
const succeededWith = (url: string, state: string, lastAttemptedTime = at(-MINUTE)) =>
  withRecord({
    phase: 'Succeeded',
    succeeded: true,
    lastAttemptedTime,
    pullRequest: { url, state },
  });

/**
 * A pull-request promotion "succeeds" once its request is open: prod waits for a person to
 * merge it (not "succeeded"), and a request closed unmerged means the revision never arrives.
 */
function pullRequestCases(): Case[] {
  const opened = new Date(NOW - MINUTE).toISOString();
  return [
    {
      name: 'Succeeded with its GitHub pull request open: prod waits for the merge',
      input: succeededWith(GITHUB, 'open'),
      env: 'prod',
      want: {
        outcome: 'Waiting',
        reason: 'PullRequestOpen',
        revision: '1.0.1',
        retryAt: undefined,
        message: `prod waits for pull request #3 to merge (opened at ${opened}); it promotes 1.0.1`,
      },
    },
    {
      name: 'Succeeded with its GitLab merge request open: named by its iid',
      input: succeededWith(GITLAB, 'open'),
      env: 'prod',
      want: {
        outcome: 'Waiting',
        reason: 'PullRequestOpen',
        message: expect.stringContaining('pull request #12 to merge') as string,
      },
    },
    {
      name: 'an open request with an unreadable time still waits, without a time',
      input: succeededWith(GITHUB, 'open', 'yesterday'),
      env: 'prod',
      want: {
        outcome: 'Waiting',
        reason: 'PullRequestOpen',
        message: 'prod waits for pull request #3 to merge; it promotes 1.0.1',
      },
    },
    {
      name: 'an open request whose URL names no number is named by its URL',
      input: succeededWith('https://forge.example/acme/fleet/changes/x', 'open'),
      env: 'prod',
      want: {
        outcome: 'Waiting',
        reason: 'PullRequestOpen',
        message: expect.stringContaining(
          'pull request https://forge.example/acme/fleet/changes/x to merge',
        ) as string,
      },
    },
    {
      name: 'a merged request: succeeded, waiting for the rollout',
      input: succeededWith(GITHUB, 'merged'),
      env: 'prod',
      want: {
        outcome: 'AlreadyPromoted',
        reason: 'PromotionSucceeded',
        message:
          'pull request #3 promoting 1.0.1 to prod was merged; waiting for its targets to run it',
      },
    },
    {
      name: 'a request closed unmerged: 1.0.1 never arrives',
      input: succeededWith(GITHUB, 'closed'),
      env: 'prod',
      want: {
        outcome: 'Failed',
        reason: 'PullRequestClosed',
        revision: '1.0.1',
        retryAt: undefined,
      },
    },
    {
      name: 'a request in a state this version does not know: succeeded, as before',
      input: succeededWith(GITHUB, 'draft'),
      env: 'prod',
      want: { outcome: 'AlreadyPromoted', reason: 'PromotionSucceeded' },
    },
    {
      name: 'a malformed pullRequest field is ignored',
      input: withRecord({ phase: 'Succeeded', succeeded: true, pullRequest: 'open' as never }),
      env: 'prod',
      want: { outcome: 'AlreadyPromoted', reason: 'PromotionSucceeded' },
    },
    {
      name: 'an open request of an older revision does not hold the newer one',
      input: devProd('1.0.1', '1.0.0', {
        records: {
          prod: record({
            revision: '1.0.0',
            phase: 'Succeeded',
            succeeded: true,
            pullRequest: { url: GITHUB, state: 'open' },
          }),
        },
      }),
      env: 'prod',
      want: { outcome: 'Promote', reason: 'UpstreamReady', revision: '1.0.1' },
    },
  ];
}

const records: Case[] = [
  {
    name: 'phase Succeeded',
    input: withRecord({ phase: 'Succeeded', succeeded: true, lastAttemptedTime: at(-MINUTE) }),
    env: 'prod',
    want: {
      outcome: 'AlreadyPromoted',
      reason: 'PromotionSucceeded',
      revision: '1.0.1',
      attempt: undefined,
    },
  },
  {
    name: 'weave record without phase, succeeded true',
    input: withRecord({ succeeded: true }),
    env: 'prod',
    want: { outcome: 'AlreadyPromoted', reason: 'PromotionSucceeded' },
  },
  {
    name: 'phase Succeeded with an unreadable time is still done',
    input: withRecord({ phase: 'Succeeded', succeeded: true, lastAttemptedTime: 'yesterday' }),
    env: 'prod',
    want: { outcome: 'AlreadyPromoted', reason: 'PromotionSucceeded' },
  },
  ...pullRequestCases(),
  {
    name: 'Claimed 1 ms before the claim timeout: in progress',
    input: withRecord({ phase: 'Claimed', attempt: 1 }, NOW + 15 * MINUTE - 1),
    env: 'prod',
    want: { outcome: 'AlreadyPromoted', reason: 'PromotionInProgress', retryAt: NOW + 15 * MINUTE },
  },
  {
    name: 'Claimed exactly at the claim timeout: abandoned, backoff over, retry',
    input: withRecord({ phase: 'Claimed', attempt: 1 }, NOW + 15 * MINUTE),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'RetryAfterFailure', attempt: 2, revision: '1.0.1' },
  },
  {
    name: 'Claimed abandoned with a backoff longer than the claim timeout: wait',
    input: withRecord({ phase: 'Claimed', attempt: 1 }, NOW + 15 * MINUTE, {
      ...POLICY,
      backoffBaseMs: 20 * MINUTE,
      backoffMaxMs: 60 * MINUTE,
    }),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'RetryBackoff', retryAt: NOW + 20 * MINUTE },
  },
  {
    name: 'Failed and not retryable: no further attempt, however long ago',
    input: withRecord(
      {
        phase: 'Failed',
        succeeded: false,
        attempt: 1,
        retryable: false,
        lastAttemptedTime: at(-MINUTE),
      },
      NOW + 600 * MINUTE,
    ),
    env: 'prod',
    want: { outcome: 'Failed', reason: 'NotRetryable', revision: '1.0.1' },
  },
  {
    name: 'Failed and explicitly retryable: retried after backoff like a weave record',
    input: withRecord(
      {
        phase: 'Failed',
        succeeded: false,
        attempt: 1,
        retryable: true,
        lastAttemptedTime: at(-MINUTE),
      },
      NOW + 600 * MINUTE,
    ),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'RetryAfterFailure', attempt: 2 },
  },
  {
    name: 'Claimed abandoned at the last attempt: exhausted',
    input: withRecord({ phase: 'Claimed', attempt: 3 }, NOW + 16 * MINUTE),
    env: 'prod',
    want: { outcome: 'Failed', reason: 'RetriesExhausted' },
  },
  {
    name: 'Claimed with an unknown future phase is treated as in flight',
    input: withRecord({ phase: 'Pending' as never }, NOW + MINUTE),
    env: 'prod',
    want: { outcome: 'AlreadyPromoted', reason: 'PromotionInProgress' },
  },
  {
    name: 'Failed attempt 1, 1 ms before the backoff ends',
    input: withRecord({ phase: 'Failed', attempt: 1 }, NOW + MINUTE - 1),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'RetryBackoff', retryAt: NOW + MINUTE, revision: '1.0.1' },
  },
  {
    name: 'Failed attempt 1 that the remote asked to hold for 10 minutes: its time wins',
    input: withRecord(
      { phase: 'Failed', attempt: 1, retryAfterTime: at(10 * MINUTE) },
      NOW + 5 * MINUTE,
    ),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'RetryBackoff', retryAt: NOW + 10 * MINUTE },
  },
  {
    name: 'Failed attempt 1 with a remote hold shorter than the backoff: the backoff wins',
    input: withRecord({ phase: 'Failed', attempt: 1, retryAfterTime: at(1000) }, NOW + MINUTE - 1),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'RetryBackoff', retryAt: NOW + MINUTE },
  },
  {
    name: 'Failed attempt 1, exactly at retryAt',
    input: withRecord({ phase: 'Failed', attempt: 1 }, NOW + MINUTE),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'RetryAfterFailure', attempt: 2, retryAt: undefined },
  },
  {
    name: 'Failed attempt 2 doubles the backoff: 1 ms before',
    input: withRecord({ phase: 'Failed', attempt: 2 }, NOW + 2 * MINUTE - 1),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'RetryBackoff', retryAt: NOW + 2 * MINUTE },
  },
  {
    name: 'Failed attempt 2 doubles the backoff: exactly at retryAt',
    input: withRecord({ phase: 'Failed', attempt: 2 }, NOW + 2 * MINUTE),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'RetryAfterFailure', attempt: 3 },
  },
  {
    name: 'Failed at the last attempt: exhausted',
    input: withRecord({ phase: 'Failed', attempt: 3 }, NOW + 100 * MINUTE),
    env: 'prod',
    want: { outcome: 'Failed', reason: 'RetriesExhausted', revision: '1.0.1' },
  },
  {
    name: 'backoff is capped at backoffMaxMs',
    input: withRecord({ phase: 'Failed', attempt: 8 }, NOW, { ...POLICY, maxAttempts: 10 }),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'RetryBackoff', retryAt: NOW + 10 * MINUTE },
  },
  {
    name: 'weave record without phase, succeeded false, no attempt: first attempt failed',
    input: withRecord({ succeeded: false }, NOW + MINUTE),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'RetryAfterFailure', attempt: 2 },
  },
  {
    name: 'a timestamp with an offset is read as RFC 3339',
    input: withRecord(
      { phase: 'Failed', attempt: 1, lastAttemptedTime: '2025-01-01T14:00:00+02:00' },
      NOW + MINUTE - 1,
    ),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'RetryBackoff', retryAt: NOW + MINUTE },
  },
  {
    name: 'Failed with an unparseable time: parked, not retried',
    input: withRecord(
      { phase: 'Failed', attempt: 1, lastAttemptedTime: 'not a time' },
      NOW + 1000 * MINUTE,
    ),
    env: 'prod',
    want: { outcome: 'Failed', reason: 'InvalidAttemptTime' },
  },
  {
    name: 'Claimed with an unparseable time: parked, not retried',
    input: withRecord({ phase: 'Claimed', attempt: 1, lastAttemptedTime: '' }),
    env: 'prod',
    want: { outcome: 'Failed', reason: 'InvalidAttemptTime' },
  },
  {
    name: 'a Date.parse-able but non-RFC 3339 time is not accepted',
    input: withRecord(
      { phase: 'Failed', attempt: 1, lastAttemptedTime: 'Wed, 01 Jan 2025 12:00:00 GMT' },
      NOW + 1000 * MINUTE,
    ),
    env: 'prod',
    want: { outcome: 'Failed', reason: 'InvalidAttemptTime' },
  },
  {
    name: 'an exhausted budget is reported even when the time is unreadable',
    input: withRecord({ phase: 'Failed', attempt: 3, lastAttemptedTime: 'garbage' }),
    env: 'prod',
    want: { outcome: 'Failed', reason: 'RetriesExhausted' },
  },
  ...[0, -1, 1.5, Number.NaN].map((attempt): Case => ({
    name: `an unreadable attempt count (${attempt}) counts as the budget spent`,
    input: withRecord({ phase: 'Failed', attempt }, NOW + 1000 * MINUTE),
    env: 'prod',
    want: { outcome: 'Failed', reason: 'RetriesExhausted' },
  })),
  {
    name: 'a NaN now never starts a retry',
    input: withRecord({ phase: 'Failed', attempt: 1 }, Number.NaN),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'RetryBackoff' },
  },
  {
    name: 'a NaN now keeps a claim in progress',
    input: withRecord({ phase: 'Claimed', attempt: 1 }, Number.NaN),
    env: 'prod',
    want: { outcome: 'AlreadyPromoted', reason: 'PromotionInProgress' },
  },
  {
    name: 'maxAttempts below 1 is read as 1: no retries',
    input: withRecord({ phase: 'Failed', attempt: 1 }, NOW + 1000 * MINUTE, {
      ...POLICY,
      maxAttempts: 0,
    }),
    env: 'prod',
    want: { outcome: 'Failed', reason: 'RetriesExhausted' },
  },
];

describe('evaluate: promotion records', () => {
  it.each(records)('$name', expectCase);
});
