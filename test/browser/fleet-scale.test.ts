/**
 * The fleet page at 1,000 Pipelines in Chromium: it renders, applies a live update (one row,
 * then a burst of 100 coalesced into one frame) and filters by search without freezing. The
 * view (buildUi) serves a synthetic fleet (test/support/ui-fleet.ts) on a real socket; the
 * figures are measured in the browser (navigation and paint timings, the wall clock shared with
 * this process for "changed here, shown there", the page's own time applying each update
 * (its `ui:applied` events), long tasks and the longest gap between two animation frames) and printed, and
 * written to test-results/ui/fleet-1000.json; its first screenshot is also docs/images/ui-fleet.png
 * (the README's). The test asserts what the page does; how fast it
 * does it is `npm run bench`'s part (g), measured side by side with a reference.
 */
import { writeFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realScheduler } from '../../src/clock.js';
import { defaultConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { buildUi, type UiApp } from '../../src/ui/app.js';
import { FakeFleetSource, syntheticFleet } from '../support/ui-fleet.js';
import {
  docsImagePath,
  launchChromium,
  screenshotPath,
  skipBrowserTests,
  SCREENSHOT_DIR,
} from './support/chromium.js';

const SIZE = 1_000;

let source: FakeFleetSource;
let ui: UiApp;
let url: string;
let browser: Browser;
let page: Page;
const figures: Record<string, number> = {};
const started = { ui: false, browser: false };

/** Starts watching the page's main thread: long tasks, and the longest gap between frames. */
const WATCH = `(() => {
  const w = globalThis;
  w.__longTasks = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) w.__longTasks.push(e.duration); })
    .observe({ type: 'longtask' });
  w.__maxFrameGap = 0;
  let last = performance.now();
  const frame = (t) => { w.__maxFrameGap = Math.max(w.__maxFrameGap, t - last); last = t; requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
})()`;

/**
 * Before the page's own scripts (an init script, which the CSP does not govern): records each
 * `ui:applied` the page dispatches after applying a live update (docs/ui.md: its items and the
 * milliseconds the page spent), with the wall-clock time it came.
 */
const RECORD_APPLIED = `document.addEventListener('ui:applied', (event) => {
  (globalThis.__applied ??= []).push({ at: Date.now(), items: event.detail.items, ms: event.detail.ms });
})`;

/** Resets the main-thread figures before a step. */
const RESET = `(() => { globalThis.__longTasks = []; globalThis.__maxFrameGap = 0; globalThis.__applied = []; })()`;

/** The updates the page applied since the last reset: how many items, and its time on them. */
function applied(): Promise<{ items: number; ms: number; updates: number }> {
  return page.evaluate<{ items: number; ms: number; updates: number }>(`(() => {
    const a = globalThis.__applied ?? [];
    return { items: a.reduce((t, x) => t + x.items, 0), ms: a.reduce((t, x) => t + x.ms, 0), updates: a.length };
  })()`);
}

/** The main-thread figures since the last reset: the longest task and frame gap, in ms. */
async function blocked(): Promise<{ longestTask: number; maxFrameGap: number }> {
  return page.evaluate<{ longestTask: number; maxFrameGap: number }>(
    `({ longestTask: Math.max(0, ...globalThis.__longTasks), maxFrameGap: globalThis.__maxFrameGap })`,
  );
}

/** Resolves (in the page) to the wall-clock time `selector`'s text first contains `text`. */
function shownAt(selector: string, text: string): Promise<number> {
  return page.evaluate<number>(
    `new Promise((resolve) => {
      const done = () => { const el = document.querySelector(${JSON.stringify(selector)});
        return el !== null && el.textContent.includes(${JSON.stringify(text)}); };
      if (done()) { resolve(Date.now()); return; }
      const observer = new MutationObserver(() => { if (done()) { observer.disconnect(); resolve(Date.now()); } });
      observer.observe(document.body, { subtree: true, childList: true, characterData: true });
    })`,
  );
}

/** The synthetic fleet's Pipeline number `i`: its namespace and name (ui-fleet.ts). */
const nth = (i: number) => ({
  namespace: `team-${String(i % 20).padStart(2, '0')}`,
  name: `app-${String(i).padStart(4, '0')}`,
});

const revisionOf = (i: number, env: string) => {
  const { namespace, name } = nth(i);
  return `[data-testid="pipeline-row"][data-pipeline="${namespace}/${name}"] [data-testid="env-cell"][data-env="${env}"] [data-testid="env-revision"]`;
};

describe.skipIf(skipBrowserTests())('the fleet page at 1,000 Pipelines, in Chromium', () => {
  beforeAll(async () => {
    source = syntheticFleet(SIZE);
    const config = defaultConfig({ ui: { port: 0, anonymous: true } });
    if (config.ui === undefined) throw new Error('no ui');
    ui = await buildUi({
      config: { ...config, ui: config.ui },
      logger: createLogger('silent'),
      source,
      scheduler: realScheduler,
    });
    started.ui = true;
    url = await ui.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    started.browser = true;
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.addInitScript(RECORD_APPLIED);
  });
  afterAll(async () => {
    const version = started.browser ? browser.version() : undefined;
    if (started.browser) await browser.close();
    if (started.ui) await ui.app.close();
    const report = { pipelines: SIZE, chromium: version, ...figures };
    writeFileSync(
      `${SCREENSHOT_DIR}/fleet-${String(SIZE)}.json`,
      `${JSON.stringify(report, null, 2)}\n`,
    );
    console.log(`fleet page, ${String(SIZE)} Pipelines, in Chromium: ${JSON.stringify(figures)}`);
  });

  it('renders every row, and the page script takes over', async () => {
    await page.goto(`${url}/`, { waitUntil: 'load' });
    await page.evaluate(WATCH);
    await expect.poll(() => page.getAttribute('[data-testid="live"]', 'data-state')).toBe('open');
    const timing = await page.evaluate<Record<string, number | undefined>>(`(() => {
      const nav = performance.getEntriesByType('navigation')[0];
      const paint = performance.getEntriesByName('first-contentful-paint')[0];
      return { responseEnd: nav.responseEnd, domContentLoaded: nav.domContentLoadedEventEnd,
        load: nav.loadEventEnd, firstContentfulPaint: paint ? paint.startTime : -1,
        htmlBytes: nav.transferSize, htmlBodyBytes: nav.decodedBodySize };
    })()`);
    expect(await page.locator('[data-testid="pipeline-row"]').count()).toBe(SIZE);
    expect(await page.textContent('[data-testid="count-total"]')).toBe(String(SIZE));
    figures.firstContentfulPaintMs = Math.round(timing.firstContentfulPaint ?? -1);
    figures.domContentLoadedMs = Math.round(timing.domContentLoaded ?? -1);
    figures.loadMs = Math.round(timing.load ?? -1);
    figures.htmlTransferBytes = timing.htmlBytes ?? -1;
    figures.htmlBytes = timing.htmlBodyBytes ?? -1;
    expect(figures.firstContentfulPaintMs).toBeGreaterThan(0);
    // It fits the 1,280 px window: nothing makes the page scroll sideways.
    expect(
      await page.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      ),
    ).toBe(0);
    await page.screenshot({ path: screenshotPath('fleet-1000') });
    // The README's and docs/ui.md's picture of the fleet: the same synthetic fleet every run.
    await page.screenshot({
      path: docsImagePath('ui-fleet'),
      animations: 'disabled',
      clip: { x: 0, y: 0, width: 1280, height: 720 },
    });
  });

  it('applies a change to one row', async () => {
    await page.evaluate(RESET);
    const shown = shownAt(revisionOf(500, 'dev'), '7.7.7');
    const changedAt = Date.now();
    source.put({ ...nth(500), revision: '7.7.7' });
    figures.updateMs = (await shown) - changedAt;
    const page1 = await applied();
    expect(page1.items).toBeGreaterThanOrEqual(1);
    figures.updateApplyMs = Math.round(page1.ms * 10) / 10;
    const main = await blocked();
    figures.updateLongestTaskMs = Math.round(main.longestTask);
    figures.updateMaxFrameGapMs = Math.round(main.maxFrameGap);
  });

  it('applies a burst of 100 changed rows', async () => {
    await page.evaluate(RESET);
    const shown = shownAt(revisionOf(SIZE - 10, 'dev'), '8.8.8');
    const changedAt = Date.now();
    for (let i = 0; i < SIZE; i += 10) source.put({ ...nth(i), revision: '8.8.8' });
    figures.burst100Ms = (await shown) - changedAt;
    const page100 = await applied();
    expect(page100.items).toBeGreaterThanOrEqual(100);
    figures.burst100Updates = page100.updates;
    figures.burst100ApplyMs = Math.round(page100.ms * 10) / 10;
    const main = await blocked();
    figures.burstLongestTaskMs = Math.round(main.longestTask);
    figures.burstMaxFrameGapMs = Math.round(main.maxFrameGap);
    expect(await page.locator('[data-testid="pipeline-row"]').count()).toBe(SIZE);
  });

  it('filters the 1,000 rows by search as one types', async () => {
    await page.evaluate(RESET);
    const started = Date.now();
    await page.fill('[data-testid="search"]', 'app-0123');
    await expect.poll(() => page.locator('[data-testid="pipeline-row"]:visible').count()).toBe(1);
    figures.searchMs = Date.now() - started;
    figures.searchLongestTaskMs = Math.round((await blocked()).longestTask);
    await page.fill('[data-testid="search"]', '');
    await expect
      .poll(() => page.locator('[data-testid="pipeline-row"]:visible').count())
      .toBe(SIZE);
  });
});
