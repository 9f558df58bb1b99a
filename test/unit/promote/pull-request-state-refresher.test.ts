/**
 * Keeping an open pull request's state in the Pipeline status: read again at most once per
 * interval, merged and closed recorded (closed with the promise not to reopen), read failures
 * asked again after the interval, and only environments whose request is open are asked about.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { pipelineIdOf } from '../../../src/pipeline/id.js';
import type { Pipeline, PromotionRecord } from '../../../src/pipeline/pipeline-resource.js';
import {
  requestNumberOf,
  withRequestState,
} from '../../../src/promote/strategies/pull-request/refresh.js';
import type { PullRequestRef } from '../../../src/forge/forge-model.js';
import {
  PullRequestRefresher,
  requestStateChange,
} from '../../../src/promote/strategies/pull-request/state-refresher.js';
import { FakePipelineWriter, statusWriterOver } from '../../support/fake-pipeline-writer.js';
import { samplePipeline } from '../../support/pipeline-fixtures.js';

const URL_7 = 'https://github.com/acme/fleet/pull/7';

function pipelineWithRequest(state = 'open'): Pipeline {
  const record: PromotionRecord = {
    revision: '6.6.0',
    lastAttemptedTime: '2026-11-25T10:00:00Z',
    succeeded: true,
    phase: 'Succeeded',
    pullRequest: { url: URL_7, state },
  };
  const pipeline = samplePipeline({ environments: { prod: { promotion: record } } });
  // prod's own strategy wins over the pipeline-wide one: it is prod's that opens requests.
  const prod = pipeline.spec.environments[2];
  if (prod?.promotion !== undefined)
    prod.promotion.strategy = {
      'pull-request': {
        type: 'github',
        url: 'https://github.com/acme/fleet',
        baseBranch: 'main',
        secretRef: { name: 'forge' },
      },
    };
  return pipeline;
}

function rig(answers: (PullRequestRef['state'] | 'fail')[]) {
  const writer = new FakePipelineWriter();
  const clock = { now: 1_000_000 };
  const asked: string[] = [];
  const refresher = new PullRequestRefresher({
    status: statusWriterOver(writer),
    logger: createLogger('silent'),
    now: () => clock.now,
    intervalMs: 60_000,
    state: (_spec, _ns, url) => {
      asked.push(url);
      const answer = answers.shift() ?? 'open';
      return Promise.resolve(
        answer === 'fail'
          ? { reason: 'ForgeUnavailable' as const, message: 'down', retryable: true }
          : answer,
      );
    },
  });
  return { writer, clock, asked, refresher };
}

describe('pull request state in status', () => {
  it('reads an open request at most once per interval and records a merge', async () => {
    const { writer, clock, asked, refresher } = rig(['open', 'merged']);
    const stored = writer.put(pipelineWithRequest());
    expect(await refresher.refresh(stored)).toBe(stored);
    await refresher.refresh(stored);
    expect(asked).toEqual([URL_7]);
    clock.now += 60_000;
    const merged = await refresher.refresh(stored);
    expect(asked).toHaveLength(2);
    expect(merged.status?.environments?.prod?.promotion).toMatchObject({
      pullRequest: { url: URL_7, state: 'merged' },
      revision: '6.6.0',
      phase: 'Succeeded',
    });
    expect(writer.writes).toBe(1);
    // Merged is final: nothing is asked any more.
    clock.now += 60_000;
    await refresher.refresh(merged);
    expect(asked).toHaveLength(2);
  });

  it('records a close with the promise not to reopen; a failed read waits for the interval too', async () => {
    const { writer, clock, asked, refresher } = rig(['fail', 'closed']);
    const stored = writer.put(pipelineWithRequest());
    expect(await refresher.refresh(stored)).toBe(stored);
    // A forge that is down is not asked again on every event.
    await refresher.refresh(stored);
    expect(asked).toHaveLength(1);
    clock.now += 60_000;
    const closed = await refresher.refresh(stored);
    expect(asked).toHaveLength(2);
    expect(closed.status?.environments?.prod?.promotion?.message).toContain('not proposed again');
  });

  it('says when an open request is due again, so the Pipeline is requeued for it', async () => {
    const { writer, clock, refresher } = rig(['open', 'merged']);
    const stored = writer.put(pipelineWithRequest());
    const id = pipelineIdOf(stored);
    expect(refresher.dueInMs(id)).toBeUndefined();
    await refresher.refresh(stored);
    clock.now += 15_000;
    expect(refresher.dueInMs(id)).toBe(45_000);
    clock.now += 45_000;
    await refresher.refresh(stored);
    // Merged: nothing is open any more, nothing to requeue for.
    expect(refresher.dueInMs(id)).toBeUndefined();
  });

  it('asks nothing for records without an open request', async () => {
    const { writer, asked, refresher } = rig([]);
    await refresher.refresh(writer.put(pipelineWithRequest('merged')));
    await refresher.refresh(writer.put(samplePipeline()));
    expect(asked).toEqual([]);
  });

  it('reads request numbers from GitHub and GitLab URLs', () => {
    expect(requestNumberOf(URL_7)).toBe(7);
    expect(requestNumberOf('https://gitlab.com/acme/platform/fleet/-/merge_requests/12')).toBe(12);
    expect(requestNumberOf('https://github.com/acme/fleet')).toBeUndefined();
    expect(requestNumberOf('not a url')).toBeUndefined();
  });

  it('keeps the record but its pull request state and message', () => {
    const record = pipelineWithRequest().status?.environments?.prod?.promotion;
    if (record === undefined) throw new Error('no record');
    expect(withRequestState(record, 'merged')).toEqual({
      ...record,
      pullRequest: { url: URL_7, state: 'merged' },
      message: `pull request ${URL_7} was merged; waiting for the rollout of 6.6.0`,
    });
  });

  it('records a new state only over the record whose request was read', () => {
    const pipeline = pipelineWithRequest();
    const from = pipeline.status?.environments?.prod?.promotion;
    if (from === undefined) throw new Error('no record');
    const merged = withRequestState(from, 'merged');
    const change = requestStateChange('prod', from, merged, 0);
    const written = change(pipeline);
    expect('write' in written && written.write.environments?.prod?.promotion).toStrictEqual(merged);
    // Another promotion replaced the record meanwhile: its request is not ours to mark.
    const next = pipelineWithRequest();
    const prod = next.status?.environments?.prod;
    if (prod?.promotion !== undefined) prod.promotion = { ...prod.promotion, revision: '6.7.0' };
    expect(change(next)).toStrictEqual({ keep: 'Moved' });
  });
});
