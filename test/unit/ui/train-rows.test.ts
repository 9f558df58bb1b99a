/**
 * The trains on the fleet page: one row per train a viewer may see (every member visible), per
 * gated environment the combination's digest shortened with a copy button, the state, what waits
 * and why; a refused train says why; the hub sends the section again, alone, when the trains
 * change, and a stream that opens gets it whole.
 */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { pipelineId } from '../../../src/pipeline/id.js';
import type { PromotionTrain } from '../../../src/trains/train-resource.js';
import { LiveHub } from '../../../src/ui/live-hub.js';
import { trainsSection, visibleTrains } from '../../../src/ui/train-rows.js';
import type { Viewer } from '../../../src/ui/ui-access.js';
import { FakeScheduler } from '../../support/fake-scheduler.js';
import { syntheticFleet } from '../../support/ui-fleet.js';

const DIGEST = `sha256:${'3f2a1b9c'.repeat(8)}`;

function train(overrides: Partial<PromotionTrain> = {}): PromotionTrain {
  return {
    apiVersion: 'pipelines.promotion-gateway.dev/v1alpha1',
    kind: 'PromotionTrain',
    metadata: { namespace: 'shop', name: 'release' },
    spec: { members: [{ name: 'api' }, { name: 'web', dependsOn: ['api'] }] },
    status: {
      members: ['api', 'web'],
      environments: [
        {
          name: 'prod',
          observed: [
            {
              digest: DIGEST,
              members: { api: '2.0.0', web: '5.1.0' },
              observedAt: '2026-12-07T10:00:00.000Z',
            },
          ],
          release: {
            digest: DIGEST,
            members: { api: '2.0.0', web: '5.1.0' },
            state: 'Promoting',
            startedAt: '2026-12-07T10:00:01.000Z',
            waitingFor: ['web'],
            reason: 'Promoting',
            message: 'promoting web',
          },
        },
      ],
    },
    ...overrides,
  };
}

const viewer = (patterns: string[]): Viewer => ({
  subject: 'someone',
  sees: (id) =>
    patterns.some(
      (p) => p === '*' || p === id || (p.endsWith('/*') && id.startsWith(p.slice(0, -1))),
    ),
  scopeKey: patterns.join('\n'),
  seesNothing: patterns.length === 0,
});

describe('the trains section', () => {
  it('shows a train as one row: members in order, per environment digest, state, waits, why', () => {
    const text = trainsSection([train()]).text;
    expect(text.match(/data-testid="train-row"/g)).toHaveLength(1);
    expect(text).toContain('data-train="shop/release"');
    expect(text).toContain('web <small>after api</small>');
    expect(text).toContain(`title="${DIGEST}"`);
    expect(text).toContain('<span>3f2a1b9…</span>');
    expect(text).toContain(`data-copy="${DIGEST}"`);
    expect(text).toMatch(/data-testid="train-state"[^>]*>Promoting</);
    expect(text).toContain('waits for web');
    expect(text).toContain('promoting web');
    expect(text).toContain('<details data-detail="shop/release">');
  });

  it('says why a refused train is not used', () => {
    const refused = train({
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'MemberInAnotherTrain',
            message: 'api is a member of shop/first',
            lastTransitionTime: '2026-12-07T10:00:00.000Z',
          },
        ],
      },
    });
    const text = trainsSection([refused]).text;
    expect(text).toContain('not used: MemberInAnotherTrain — api is a member of shop/first');
    expect(text).toContain('nothing recorded yet');
  });

  it('is hidden and empty without a train', () => {
    expect(trainsSection([]).text).toBe('<section id="trains" hidden></section>');
  });

  it('shows a train only to a viewer who may see every member', () => {
    const trains = [train()];
    expect(visibleTrains(trains, viewer(['shop/*']))).toHaveLength(1);
    expect(visibleTrains(trains, viewer(['shop/api']))).toHaveLength(0);
    expect(visibleTrains(trains, viewer(['shop/api', 'shop/web']))).toHaveLength(1);
    expect(
      visibleTrains(
        [train({ status: {}, spec: { selector: { matchLabels: { a: 'b' } } } })],
        viewer(['shop/*']),
      ),
    ).toHaveLength(0);
  });
});

class FakeResponse extends EventEmitter {
  readonly written: string[] = [];
  writableLength = 0;
  destroyed = false;
  readonly socket = { setTimeout: () => undefined };
  writeHead(): this {
    return this;
  }
  write(text: string): boolean {
    this.written.push(text);
    return true;
  }
  end(): void {
    this.emit('close');
  }
  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }
  trains(): string[] {
    return this.written.filter((w) => w.includes('event: trains\n'));
  }
}

describe('the trains, live', () => {
  it('sends the section when a stream opens and again, alone, when the trains change', () => {
    const scheduler = new FakeScheduler(1_000);
    const fleet = syntheticFleet(3);
    let trains: PromotionTrain[] = [train()];
    const listeners = new Set<() => void>();
    const source = Object.assign(fleet, {
      trains: () => trains,
      onTrains: (listener: () => void) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    });
    const live = new LiveHub(source, {
      ...{ scheduler, logger: createLogger('silent'), maxStreams: 4, maxStreamsPerViewer: 2 },
      ...{ coalesceMs: 100, heartbeatMs: 15_000, retryMs: 2_000, maxBacklogBytes: 65_536 },
      renderBody: () => undefined,
    });
    live.start();
    const all = viewer(['*']);
    expect(live.snapshot(all).trains.text).toContain('data-train="shop/release"');
    const response = new FakeResponse();
    expect(live.openFleet(response as unknown as ServerResponse, all, live.token())).toBe(true);
    expect(response.trains()).toHaveLength(1);

    const done = train();
    const release = done.status?.environments?.[0]?.release;
    if (release !== undefined) Object.assign(release, { state: 'Succeeded', waitingFor: [] });
    trains = [done];
    for (const listener of listeners) listener();
    scheduler.advance(100);
    expect(response.trains()).toHaveLength(2);
    expect(response.trains()[1]).toMatch(/data-testid=\\"train-state\\"[^>]*>Succeeded</);
    expect(response.written.filter((w) => w.includes('event: rows\n'))).toHaveLength(0);
    expect(pipelineId({ namespace: 'shop', name: 'api' })).toBe('shop/api');
    live.stop();
  });
});
