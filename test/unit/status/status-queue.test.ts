/**
 * Status writes behind the checks: one pending write per Pipeline (the newest check wins),
 * writes for other Pipelines never wait for each other's turn, and a full queue writes at once
 * rather than dropping a status.
 */
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/load.js';
import { pipelineId } from '../../../src/pipeline/id.js';
import type { Pipeline } from '../../../src/pipeline/pipeline-resource.js';
import { STATUS_WRITES_IN_FLIGHT, StatusQueue } from '../../../src/status/status-queue.js';
import { advanceInSteps, deferred, FakeScheduler, flush } from '../../support/fake-scheduler.js';
import { samplePipeline } from '../../support/pipeline-fixtures.js';

const id = pipelineId({ namespace: 'flux-system', name: 'podinfo' });

/** The Pipeline as one check saw it, told apart by its resourceVersion. */
function inputs(tag: string): Pipeline {
  const pipeline = samplePipeline();
  return { ...pipeline, metadata: { ...pipeline.metadata, resourceVersion: tag } };
}

function tagOf(written: Pipeline | undefined): unknown {
  return written?.metadata.resourceVersion ?? 'latest';
}

/** A queue writing one at a time, whose first write waits for `gate`; what it wrote, in order. */
function gatedQueue() {
  const written: (Pipeline | undefined)[] = [];
  const gate = deferred<undefined>();
  const hints = { ...defaultConfig({}).hints, capacity: 100 };
  const queue = new StatusQueue({
    hints,
    globalConcurrency: 1,
    writer: {
      write: async (_id, i) => {
        written.push(i);
        if (written.length === 1) await gate.promise;
      },
    },
  });
  return { queue, written, gate };
}

describe('StatusQueue', () => {
  it('writes only the newest status computed while an earlier one waited', async () => {
    const { queue, written, gate } = gatedQueue();
    const other = pipelineId({ namespace: 'apps', name: 'other' });
    await queue.request(other, inputs('other'));
    await flush();
    // `other` is being written; three computations of `id` arrive meanwhile.
    for (const tag of ['first', 'second', 'third']) await queue.request(id, inputs(tag));
    gate.resolve(undefined);
    await queue.idle();
    expect(written.map(tagOf)).toEqual(['other', 'third']);
  });

  it('holds no object for a check that wrote none (the catalog has it), and the newest of either', async () => {
    const { queue, written, gate } = gatedQueue();
    const other = pipelineId({ namespace: 'apps', name: 'other' });
    await queue.request(other);
    await flush();
    await queue.request(id, inputs('claimed'));
    await queue.request(id);
    gate.resolve(undefined);
    await queue.idle();
    expect(written.map(tagOf)).toEqual(['latest', 'latest']);
  });

  it('writes the statuses of STATUS_WRITES_IN_FLIGHT Pipelines at once, not perClusterConcurrency', async () => {
    const gate = deferred<undefined>();
    let running = 0;
    let most = 0;
    const hints = { ...defaultConfig({}).hints, capacity: 100 };
    const queue = new StatusQueue({
      hints,
      writer: {
        write: async () => {
          running += 1;
          most = Math.max(most, running);
          await gate.promise;
          running -= 1;
        },
      },
    });
    for (let i = 0; i < STATUS_WRITES_IN_FLIGHT + 8; i++)
      await queue.request(pipelineId({ namespace: 'apps', name: `p${String(i)}` }), inputs('x'));
    await flush();
    expect(most).toBe(STATUS_WRITES_IN_FLIGHT);
    expect(STATUS_WRITES_IN_FLIGHT).toBeGreaterThan(hints.perClusterConcurrency);
    gate.resolve(undefined);
    await queue.idle();
    expect(running).toBe(0);
  });

  it('writes at once, in the caller, when the queue is full', async () => {
    const written: (Pipeline | undefined)[] = [];
    const hints = { ...defaultConfig({}).hints, capacity: 0 };
    const queue = new StatusQueue({
      hints,
      writer: {
        write: (_id, i) => {
          written.push(i);
          return Promise.resolve();
        },
      },
    });
    await queue.request(id, inputs('now'));
    expect(written.map(tagOf)).toEqual(['now']);
    expect(queue.stats().depth).toBe(0);
  });
});

describe('StatusQueue after a failed write', () => {
  /** A queue on `scheduler` whose first write fails; retries come exactly 1 s later. */
  function failingOnce(scheduler: FakeScheduler) {
    const written: string[] = [];
    let failures = 1;
    const hints = { ...defaultConfig({}).hints, retryBaseMs: 1_000, retryMaxMs: 1_000 };
    const queue = new StatusQueue({
      hints,
      scheduler,
      // No jitter: the retry is due exactly retryMaxMs after the failure.
      random: () => 1,
      writer: {
        write: (_id, i) => {
          written.push(String(tagOf(i)));
          if (failures-- > 0) return Promise.reject(new Error('management API unreachable'));
          return Promise.resolve();
        },
      },
    });
    return { queue, written };
  }

  it('writes the same status again when the backoff ends, not before', async () => {
    const scheduler = new FakeScheduler();
    const { queue, written } = failingOnce(scheduler);
    await queue.request(id, inputs('only'));
    await advanceInSteps(scheduler, 999);
    expect(written).toEqual(['only']);
    await advanceInSteps(scheduler, 1);
    expect(written).toEqual(['only', 'only']);
  });

  it('writes the newer status on the retry when one arrived during the backoff', async () => {
    const scheduler = new FakeScheduler();
    const { queue, written } = failingOnce(scheduler);
    await queue.request(id, inputs('old'));
    await flush();
    await queue.request(id, inputs('new'));
    await advanceInSteps(scheduler, 999);
    expect(written).toEqual(['old']);
    await advanceInSteps(scheduler, 1);
    expect(written).toEqual(['old', 'new']);
  });
});
