/**
 * The web view's metrics through real sockets: answered requests by route pattern and status,
 * live streams open at scrape time, and streams ended by cause.
 */
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realScheduler } from '../../../src/clock.js';
import { defaultConfig } from '../../../src/config/load.js';
import { createLogger } from '../../../src/log.js';
import { buildUi, type UiApp } from '../../../src/ui/app.js';
import { uiMetrics } from '../../../src/ui/ui-metrics.js';
import { eventually } from '../../support/poll.js';
import { openSse } from '../../support/sse-client.js';
import { syntheticFleet } from '../../support/ui-fleet.js';

let ui: UiApp;
let url: string;
const registry = new Registry();

beforeAll(async () => {
  const config = defaultConfig({ ui: { port: 0, anonymous: true } });
  if (config.ui === undefined) throw new Error('no ui');
  ui = await buildUi({
    config: { ...config, ui: config.ui },
    logger: createLogger('silent'),
    source: syntheticFleet(5),
    scheduler: realScheduler,
    live: { coalesceMs: 50, heartbeatMs: 300 },
    metrics: uiMetrics(registry),
  });
  url = await ui.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await ui.app.close();
});

/** The value of `name` with exactly `labels`, or 0 when it has none such. */
async function value(name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const found = metric?.values.find((v) =>
    Object.entries(labels).every(([k, l]) => String(v.labels[k]) === l),
  );
  return found?.value ?? 0;
}

describe('the view metrics', () => {
  it('counts answers by route pattern and status, never by URL', async () => {
    expect((await fetch(`${url}/`)).status).toBe(200);
    expect((await fetch(`${url}/pipelines/team-00/app-0000`)).status).toBe(200);
    expect((await fetch(`${url}/pipelines/team-00/nope`)).status).toBe(404);
    expect((await fetch(`${url}/no/such/page`)).status).toBe(404);
    const requests = 'promotion_gateway_ui_requests_total';
    expect(await value(requests, { route: '/', status: '200' })).toBe(1);
    expect(await value(requests, { route: '/pipelines/:namespace/:name', status: '200' })).toBe(1);
    expect(await value(requests, { route: '/pipelines/:namespace/:name', status: '404' })).toBe(1);
    expect(await value(requests, { route: '_unmatched', status: '404' })).toBe(1);
    const text = await registry.metrics();
    expect(text).not.toContain('app-0000');
  });

  it('reads the open live streams at scrape time and counts the ended ones by cause', async () => {
    const streams = 'promotion_gateway_ui_live_streams';
    expect(await value(streams)).toBe(0);
    const live = await openSse(`${url}/live`);
    await live.next();
    expect(await value(streams)).toBe(1);
    live.close();
    // The server hears of the close when the socket ends: wait for that, bounded.
    await eventually(async () => (await value(streams)) === 0);
    const closed = 'promotion_gateway_ui_live_streams_closed_total';
    await eventually(async () => (await value(closed, { cause: 'client' })) === 1);
  });
});
