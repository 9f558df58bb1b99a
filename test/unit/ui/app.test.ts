/**
 * The view's HTTP app through real sockets, over a synthetic fleet: strict headers on every
 * answer, 401 and 403 pages that say what to do, no 5xx for any bad input, pages and streams
 * filtered to the viewer's Pipelines, live rows within 1 s of a change (a burst coalesced into
 * one frame), `retry:` and heartbeats, catch-up after a reconnect from the last event id, and
 * the cap on open streams. The hub's clock is a FakeScheduler: coalescing and heartbeats happen
 * when the test moves it, and sockets are awaited for what they carry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/load.js';
import { createLogger } from '../../../src/log.js';
import { buildUi, type UiApp } from '../../../src/ui/app.js';
import { CONTENT_SECURITY_POLICY } from '../../../src/ui/headers.js';
import { FakeScheduler } from '../../support/fake-scheduler.js';
import { AUDIENCE, ISSUER, jwtFixture, type JwtFixture } from '../../support/ingress-harness.js';
import { eventually } from '../../support/poll.js';
import { openSse, type SseReader } from '../../support/sse-client.js';
import { FakeFleetSource, syntheticFleet } from '../../support/ui-fleet.js';

let keys: JwtFixture;
let source: FakeFleetSource;
let ui: UiApp;
let url: string;
const streams: SseReader[] = [];
const COALESCE_MS = 50;
const HEARTBEAT_MS = 300;
const scheduler = new FakeScheduler(Date.now());

beforeAll(async () => {
  keys = await jwtFixture();
  source = syntheticFleet(30);
  const config = defaultConfig({
    jwt: {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ['RS256'],
      publicKeys: [{ value: keys.publicPem }],
    },
    ui: { port: 0, maxStreams: 6 },
  });
  if (config.ui === undefined) throw new Error('no ui');
  ui = await buildUi({
    config: { ...config, ui: config.ui },
    logger: createLogger('silent'),
    source,
    scheduler,
    live: { coalesceMs: COALESCE_MS, heartbeatMs: HEARTBEAT_MS, maxStreamsPerViewer: 3 },
  });
  url = await ui.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  for (const s of streams) s.close();
  await ui.app.close();
});

const bearer = async (pipelines: unknown, sub = 'alice') => ({
  authorization: `Bearer ${await keys.sign({ sub, ...(pipelines === undefined ? {} : { pipelines }) })}`,
});

async function stream(path: string, headers: Record<string, string>): Promise<SseReader> {
  const reader = await openSse(`${url}${path}`, headers);
  streams.push(reader);
  return reader;
}

const rowsOf = (data: string) => (JSON.parse(data) as { rows: [string, string | null][] }).rows;

describe('the view over HTTP', () => {
  it('sends its security headers on pages, errors and assets', async () => {
    const headers = await bearer(['*']);
    for (const path of ['/', '/nope', '/static/fleet.js', '/pipelines/team-00/app-0000']) {
      const response = await fetch(`${url}${path}`, { headers });
      expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
    }
    const page = await fetch(`${url}/`, { headers });
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });

  it('answers 401 without a token and 403 for a token that names no Pipeline, saying what to do', async () => {
    const none = await fetch(`${url}/`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(await none.text()).toContain('sign-in proxy');
    const forged = await fetch(`${url}/`, { headers: { authorization: 'Bearer a.b.c' } });
    expect(forged.status).toBe(401);
    const empty = await fetch(`${url}/`, { headers: await bearer(undefined) });
    expect(empty.status).toBe(403);
    expect(await empty.text()).toContain('pipelines claim');
    expect((await fetch(`${url}/live`)).status).toBe(401);
  });

  it('never answers bad input with a 5xx', async () => {
    const headers = await bearer(['*']);
    const cases: [string, string][] = [
      ['GET', '/pipelines/Not_A_Name/x'],
      ['GET', '/pipelines/a/b/c'],
      ['GET', '/pipelines/%zz/x'],
      ['GET', `/pipelines/${'a'.repeat(300)}/x`],
      ['GET', `/?q=${'x'.repeat(8_000)}`],
      ['GET', `/?q=${'x'.repeat(70_000)}`],
      ['GET', '/static/../package.json'],
      ['GET', '/live/pipelines/NOPE/x'],
      ['GET', '/live?since=%00%0a'],
      ['POST', '/'],
      ['DELETE', '/pipelines/team-00/app-0000'],
    ];
    for (const [method, path] of cases) {
      const response = await fetch(`${url}${path}`, { method, headers });
      expect(response.status, `${method} ${path.slice(0, 60)}`).toBeGreaterThanOrEqual(200);
      expect(response.status, `${method} ${path.slice(0, 60)}`).toBeLessThan(500);
      await response.body?.cancel();
    }
    expect((await fetch(`${url}/pipelines/a/b/c`, { headers })).status).toBe(404);
  });

  it('shows a viewer only its Pipelines, on the page and on the Pipeline page', async () => {
    const headers = await bearer(['team-01/*']);
    const page = await (await fetch(`${url}/`, { headers })).text();
    const shown = [...page.matchAll(/data-pipeline="([^"]+)"/g)].map((m) => m[1]);
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.every((id) => id?.startsWith('team-01/'))).toBe(true);
    expect((await fetch(`${url}/pipelines/team-02/app-0002`, { headers })).status).toBe(404);
    expect((await fetch(`${url}/pipelines/team-01/app-0001`, { headers })).status).toBe(200);
  });

  it('serves the page scripts gzipped, cacheable by version, revalidated by ETag', async () => {
    const page = await (await fetch(`${url}/`, { headers: await bearer(['*']) })).text();
    const src = /src="(\/static\/fleet\.js\?v=[0-9a-f]+)"/.exec(page)?.[1];
    expect(src).toBeDefined();
    const script = await fetch(`${url}${src ?? ''}`);
    expect(script.headers.get('cache-control')).toContain('immutable');
    expect(script.headers.get('content-type')).toContain('text/javascript');
    const etag = script.headers.get('etag') ?? '';
    const again = await fetch(`${url}/static/fleet.js`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });
});

describe('live updates', () => {
  it('sends retry, heartbeats, and a changed row within 1 s, a burst as one frame', async () => {
    const headers = await bearer(['*'], 'bob');
    const page = await (await fetch(`${url}/`, { headers })).text();
    const since = /data-since="([^"]+)"/.exec(page)?.[1] ?? '';
    const live = await stream(`/live?since=${since}`, headers);
    expect(live.status).toBe(200);
    expect(live.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(live.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    scheduler.advance(HEARTBEAT_MS);
    await live.next((m) => m.event === 'ping');
    expect(live.retries).toEqual([2000]);
    const from = live.messages.length;
    for (let i = 0; i < 50; i++)
      source.put({ namespace: 'team-03', name: 'app-0003', revision: `9.9.${String(i)}` });
    // Within 1 s of the hub's clock: the flush is due when the burst's window ends.
    scheduler.advance(COALESCE_MS);
    const frame = await live.next((m) => m.event === 'rows', 5_000, from);
    expect(rowsOf(frame.data)).toHaveLength(1);
    expect(frame.data).toContain('9.9.49');
    // Past every window the burst could have opened, up to the next ping: a second frame
    // would have been written before it.
    const pings = live.messages.filter((m) => m.event === 'ping').length;
    scheduler.advance(HEARTBEAT_MS);
    await live.next((m) => m.event === 'ping', 5_000, from);
    expect(live.messages.filter((m) => m.event === 'ping').length).toBe(pings + 1);
    expect(live.messages.slice(from).filter((m) => m.event === 'rows')).toHaveLength(1);
  });

  it('never sends a scoped viewer another Pipeline, and catches up after a reconnect', async () => {
    const headers = await bearer(['team-04/app-0004'], 'carol');
    const live = await stream('/live', headers);
    const first = await live.next((m) => m.event === 'rows');
    // No known change number: every visible row, which is one.
    expect(JSON.parse(first.data)).toMatchObject({ complete: true });
    expect(rowsOf(first.data).map(([id]) => id)).toEqual(['team-04/app-0004']);
    source.put({ namespace: 'team-05', name: 'app-0005', revision: '7.7.7' });
    source.put({ namespace: 'team-04', name: 'app-0004', revision: '8.8.8' });
    scheduler.advance(COALESCE_MS);
    const mine = await live.next((m) => m.event === 'rows' && m.data.includes('8.8.8'));
    const lastId = mine.id ?? '';
    live.close();
    for (const m of live.messages) expect(m.data).not.toContain('team-05/app-0005');
    // Missed while away: only the changed row comes, from the last event id.
    source.put({ namespace: 'team-04', name: 'app-0004', revision: '8.8.9' });
    source.put({ namespace: 'team-06', name: 'app-0006', revision: '6.6.6' });
    const back = await stream('/live', { ...headers, 'last-event-id': lastId });
    const caught = await back.next((m) => m.event === 'rows');
    expect(JSON.parse(caught.data)).toMatchObject({ complete: false });
    expect(rowsOf(caught.data).map(([id]) => id)).toEqual(['team-04/app-0004']);
    expect(caught.data).toContain('8.8.9');
  });

  it('follows one Pipeline, and tells its page when it is gone', async () => {
    const headers = await bearer(['team-07/*'], 'dave');
    const live = await stream('/live/pipelines/team-07/app-0007', headers);
    const first = await live.next((m) => m.event === 'pipeline');
    expect(first.data).toContain('pipeline-body');
    source.put({ namespace: 'team-07', name: 'app-0007', revision: '5.5.5' });
    scheduler.advance(COALESCE_MS);
    expect(
      (await live.next((m) => m.event === 'pipeline' && m.data.includes('5.5.5'))).data,
    ).toContain('data-testid');
    const other = await stream('/live/pipelines/team-08/app-0008', headers);
    expect(other.status).toBe(404);
    source.remove(source.ids().find((id) => id === 'team-07/app-0007') ?? source.ids()[0]!);
    scheduler.advance(COALESCE_MS);
    expect(
      JSON.parse((await live.next((m) => m.event === 'pipeline' && m.data.includes('gone'))).data),
    ).toEqual({ gone: true });
  });

  it('refuses streams past the cap with 429 and Retry-After', async () => {
    const headers = await bearer(['*'], 'erin');
    const opened = [
      await stream('/live', headers),
      await stream('/live', headers),
      await stream('/live', headers),
    ];
    expect(opened.map((s) => s.status)).toEqual([200, 200, 200]);
    const refused = await stream('/live', headers);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    const open = ui.hub.openStreams;
    for (const s of opened) s.close();
    // The hub hears of each close when its socket ends.
    await eventually(() => ui.hub.openStreams === open - opened.length);
    expect((await stream('/live', headers)).status).toBe(200);
  });
});
