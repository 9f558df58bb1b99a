/**
 * The live hub on a hand-driven clock with fake responses: a burst of changes is one frame
 * after the coalescing pause; notifications that change nothing on the page (a re-check
 * finding the same state) send nothing; a new environment name changes the columns and sends
 * every row with the new headers; a client that leaves more than the bound unsent is dropped
 * instead of buffered; heartbeats keep coming.
 */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { LiveHub, type FlushReport } from '../../../src/ui/live-hub.js';
import { FakeScheduler } from '../../support/fake-scheduler.js';
import { syntheticFleet } from '../../support/ui-fleet.js';

/** A ServerResponse that records what is written and lets the test say how much is unsent. */
class FakeResponse extends EventEmitter {
  readonly written: string[] = [];
  writableLength = 0;
  destroyed = false;
  ended = false;
  status = 0;
  readonly socket = { setTimeout: () => undefined };

  writeHead(status: number): this {
    this.status = status;
    return this;
  }

  write(text: string): boolean {
    this.written.push(text);
    return true;
  }

  end(): void {
    this.ended = true;
    this.emit('close');
  }

  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }

  events(type: string): string[] {
    return this.written.filter((w) => w.startsWith(`event: ${type}\n`));
  }
}

const everyone = { subject: 'anonymous', sees: () => true, scopeKey: '*', seesNothing: false };

function hub(count = 20) {
  const scheduler = new FakeScheduler(1_000);
  const source = syntheticFleet(count);
  const reports: FlushReport[] = [];
  const live = new LiveHub(source, {
    scheduler,
    logger: createLogger('silent'),
    maxStreams: 10,
    maxStreamsPerViewer: 2,
    coalesceMs: 100,
    heartbeatMs: 15_000,
    retryMs: 2_000,
    maxBacklogBytes: 64 * 1024,
    renderBody: () => undefined,
    observe: (r) => reports.push(r),
  });
  live.start();
  return { live, scheduler, source, reports };
}

function open(live: LiveHub): FakeResponse {
  const response = new FakeResponse();
  const since = live.token();
  expect(live.openFleet(response as unknown as ServerResponse, everyone, since)).toBe(true);
  return response;
}

describe('LiveHub', () => {
  it('sends a burst of changes as one frame after the coalescing pause', () => {
    const { live, scheduler, source, reports } = hub();
    const response = open(live);
    expect(response.written[0]).toBe('retry: 2000\n\n');
    for (let i = 0; i < 100; i++)
      source.put({ namespace: 'team-01', name: 'app-0001', revision: `2.0.${String(i)}` });
    scheduler.advance(99);
    expect(response.events('rows')).toHaveLength(0);
    scheduler.advance(1);
    expect(response.events('rows')).toHaveLength(1);
    expect(response.events('rows')[0]).toContain('2.0.99');
    expect(reports).toHaveLength(1);
    expect(reports[0]?.sinceChangeMs).toBe(100);
  });

  it('sends nothing for notifications that change nothing on the page', () => {
    const { live, scheduler, source } = hub();
    const response = open(live);
    for (const id of source.ids()) source.tell(id);
    scheduler.advance(1_000);
    expect(response.events('rows')).toHaveLength(0);
  });

  it('sends every row and the new headers when an environment name changes the columns', () => {
    const { live, scheduler, source } = hub(5);
    const response = open(live);
    source.put({ namespace: 'team-09', name: 'new', environments: ['dev', 'qa', 'prod'] });
    scheduler.advance(100);
    const [frame] = response.events('rows');
    const data = JSON.parse(frame?.split('\ndata: ')[1] ?? '{}') as {
      complete: boolean;
      plan: { headers: string[] };
      rows: unknown[];
    };
    expect(data.complete).toBe(true);
    expect(data.plan.headers).toEqual(['dev', 'qa', 'staging', 'prod']);
    expect(data.rows).toHaveLength(6);
  });

  it('drops a client that leaves more than the bound unsent, instead of buffering', () => {
    const { live, scheduler, source } = hub();
    const slow = open(live);
    const fast = open(live);
    expect(live.openStreams).toBe(2);
    slow.writableLength = 64 * 1024 + 1;
    source.put({ namespace: 'team-02', name: 'app-0002', revision: '3.0.0' });
    scheduler.advance(100);
    expect(slow.destroyed).toBe(true);
    expect(slow.events('rows')).toHaveLength(0);
    expect(fast.events('rows')).toHaveLength(1);
    expect(live.openStreams).toBe(1);
  });

  it('pings every stream on the heartbeat, and ends them all on stop', () => {
    const { live, scheduler } = hub();
    const response = open(live);
    scheduler.advance(45_000);
    expect(response.events('ping')).toHaveLength(3);
    live.stop();
    expect(response.ended).toBe(true);
    expect(live.openStreams).toBe(0);
  });
});
