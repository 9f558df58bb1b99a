/**
 * The re-check queue puts someone waiting first: a re-check asked for by an event, an approval
 * or a spec change runs ahead of every re-check the resync queued (at start-up, thousands).
 */
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/load.js';
import { PipelineQueue } from '../../../src/hints/pipeline-queue.js';
import { pipelineId, type PipelineId } from '../../../src/pipeline/id.js';
import { flush } from '../../support/fake-scheduler.js';

describe('PipelineQueue', () => {
  it('runs an event-driven re-check ahead of the resync backlog', async () => {
    const order: PipelineId[] = [];
    const hints = { ...defaultConfig({}).hints, perClusterConcurrency: 1, capacity: 1000 };
    const queue = new PipelineQueue({
      hints,
      globalConcurrency: 1,
      loaded: { has: () => true },
      reconciler: {
        reconcile: (id) => {
          order.push(id);
          return Promise.resolve('done');
        },
      },
    });
    const id = (name: string) => pipelineId({ namespace: 'apps', name });
    for (let i = 0; i < 100; i++) queue.requestPipeline(id(`p${String(i)}`), 'resync');
    queue.requestPipeline(id('hinted'), 'hint');
    queue.requestPipeline(id('p50'), 'authorization');
    await flush();
    await queue.idle();
    expect(order).toHaveLength(101);
    // p0 had already started when the others arrived; then the two who are waiting.
    expect(order.slice(0, 3)).toEqual([id('p0'), id('hinted'), id('p50')]);
    expect(order.filter((x) => x === id('p50'))).toHaveLength(1);
  });
});
