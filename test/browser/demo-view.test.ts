/**
 * The web view in a real browser (Debian's Chromium through playwright-core) against the demo
 * fleet `npm start` runs, followed as the README tells the story: the fleet page lists the
 * demo's Pipeline; a deploy to dev turns the staging column to the new version after its soak,
 * without a reload; on the Pipeline page an approval moves prod from waiting to promoting; its
 * pull-request link opens the forge's page, whose merge button rolls prod out; a dropped live
 * stream reconnects and the page catches up; axe-core finds nothing serious on either page;
 * the search box and links are reached by Tab with a visible focus. The view is reached through
 * a proxy that can drop its connections. Screenshots go to test-results/ui/.
 */
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, describeViolations, seriousOrCritical } from './support/axe.js';
import { launchChromium, screenshotPath, skipBrowserTests } from './support/chromium.js';
import { startDemo, type TestDemo } from './support/demo.js';
import { dropProxy, type DropProxy } from './support/drop-proxy.js';

const PIPELINE = 'podinfo/podinfo';
/** Long enough for dev's 5 s soak, the promotion and the Flux stand-in on two busy cores. */
const STORY_MS = 30_000;

let demo: TestDemo;
let proxy: DropProxy;
let base: string;
let browser: Browser;
let context: BrowserContext;
let fleet: Page;
let pipeline: Page;
/** What beforeAll started, stopped in reverse order (however far it got). */
const cleanups: (() => Promise<unknown>)[] = [];

/** A cell of the demo Pipeline's row on the fleet page. */
const cell = (env: string, part: 'env-revision' | 'env-state'): Locator =>
  fleet.locator(
    `[data-testid="pipeline-row"][data-pipeline="${PIPELINE}"] [data-testid="env-cell"][data-env="${env}"] [data-testid="${part}"]`,
  );

/** An environment's decision on the Pipeline page. */
const decision = (env: string): Locator =>
  pipeline.locator(`[data-testid="environment"][data-env="${env}"] [data-testid="decision"]`);

/** The live indicator's state on `page`. */
const live = (page: Page) => page.getAttribute('[data-testid="live"]', 'data-state');

/** Marks the page's window: a reload (or a navigation) would lose the mark. */
async function mark(page: Page): Promise<void> {
  await page.evaluate('globalThis.__notReloaded = true');
}
const stillMarked = (page: Page) => page.evaluate('globalThis.__notReloaded === true');

/** What has keyboard focus, and whether the browser shows it (`:focus-visible` with a ring). */
const FOCUSED = `(() => {
  const el = document.activeElement;
  if (!el || el === document.body) return { what: 'body', visible: false };
  const style = getComputedStyle(el);
  const ring = (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== 'none';
  const what = el.getAttribute('data-testid') ?? (el.tagName.toLowerCase() + (el.getAttribute('href') ? ' ' + el.getAttribute('href') : ''));
  return { what, visible: el.matches(':focus-visible') && ring };
})()`;

describe.skipIf(skipBrowserTests())('the view of the demo fleet, in Chromium', () => {
  beforeAll(async () => {
    demo = await startDemo();
    cleanups.push(() => demo.stop());
    proxy = await dropProxy(Number(new URL(demo.state.viewUrl).port));
    cleanups.push(() => proxy.close());
    base = `http://127.0.0.1:${String(proxy.port)}`;
    browser = await launchChromium();
    cleanups.push(() => browser.close());
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    fleet = await context.newPage();
  });
  afterAll(async () => {
    for (const stop of cleanups.reverse()) await stop();
  });

  it('lists the demo Pipeline on the fleet page, every environment at 6.5.0, live', async () => {
    await fleet.goto(`${base}/`);
    // podinfo, and the release train's two apps (shop/api, shop/web).
    const rows = fleet.locator('[data-testid="pipeline-row"]');
    expect(await rows.count()).toBe(3);
    expect(await rows.first().getAttribute('data-pipeline')).toBe(PIPELINE);
    expect(await fleet.locator('[data-testid="train-row"]').count()).toBe(1);
    for (const env of ['dev', 'staging', 'prod'])
      expect((await cell(env, 'env-revision').textContent())?.trim()).toBe('6.5.0');
    await expect.poll(() => live(fleet)).toBe('open');
    expect(await fleet.textContent('[data-testid="count-waiting"]')).toBe('0');
  });

  it('reaches the search box and the Pipeline link by Tab, each with a visible focus', async () => {
    const seen: { what: string; visible: boolean }[] = [];
    await fleet.locator('body').click({ position: { x: 5, y: 300 } });
    for (let i = 0; i < 20; i++) {
      await fleet.keyboard.press('Tab');
      seen.push(await fleet.evaluate<{ what: string; visible: boolean }>(FOCUSED));
    }
    const search = seen.find((s) => s.what === 'search');
    const link = seen.find((s) => s.what === `a /pipelines/${PIPELINE}`);
    expect(search, JSON.stringify(seen)).toEqual({ what: 'search', visible: true });
    expect(link, JSON.stringify(seen)).toEqual({ what: `a /pipelines/${PIPELINE}`, visible: true });
    expect(
      seen.filter((s) => !s.visible && s.what !== 'body'),
      'every stop shows its focus',
    ).toEqual([]);
  });

  it('has no serious or critical accessibility violations on the fleet page (axe-core)', async () => {
    const violations = await axeViolations(fleet);
    console.log(`axe, fleet page: ${JSON.stringify(describeViolations(violations))}`);
    expect(seriousOrCritical(violations)).toEqual([]);
  });

  it('turns the staging column to the deployed version once dev has soaked, without a reload', async () => {
    await mark(fleet);
    const deployed = await demo.command('deploy', '--env', 'dev', '--version', '6.6.0');
    expect(deployed.code).toBe(0);
    const at = Date.now();
    await expect
      .poll(() => cell('dev', 'env-revision').textContent(), { timeout: 10_000 })
      .toMatch(/6\.6\.0/);
    await expect
      .poll(() => cell('staging', 'env-revision').textContent(), { timeout: STORY_MS })
      .toMatch(/6\.6\.0/);
    const stagingMs = Date.now() - at;
    await expect
      .poll(() => fleet.textContent('[data-testid="count-waiting"]'), { timeout: 10_000 })
      .toBe('1');
    expect(await stillMarked(fleet)).toBe(true);
    console.log(`staging showed 6.6.0 ${String(stagingMs)} ms after the deploy (5 s soak)`);
    expect(stagingMs).toBeGreaterThanOrEqual(4_000);
    await fleet.evaluate('document.activeElement?.blur()');
    await fleet.screenshot({ path: screenshotPath('fleet'), fullPage: true });
  });

  it('moves prod from waiting for an approval to promoting when the approver approves', async () => {
    await fleet.click(`a[href="/pipelines/${PIPELINE}"]`);
    await fleet.waitForURL(`${base}/pipelines/${PIPELINE}`);
    pipeline = fleet;
    await expect.poll(() => live(pipeline)).toBe('open');
    expect(await decision('prod').getAttribute('data-outcome')).toBe('WaitingApproval');
    expect(await pipeline.locator('[data-testid="gate"]').count()).toBeGreaterThan(0);
    await mark(pipeline);
    const approved = await demo.command('approve', '--env', 'prod', '--revision', '6.6.0');
    expect(approved.code).toBe(0);
    await expect
      .poll(() => decision('prod').getAttribute('data-outcome'), { timeout: 10_000 })
      .not.toBe('WaitingApproval');
    const link = pipeline.locator(
      '[data-testid="environment"][data-env="prod"] a[data-testid="pull-request"], a[data-testid="pull-request"]',
    );
    await expect
      .poll(() => link.first().getAttribute('data-state'), { timeout: 10_000 })
      .toBe('open');
    expect(await decision('prod').textContent()).toMatch(/pull request #1/);
    expect(await stillMarked(pipeline)).toBe(true);
    await pipeline.screenshot({ path: screenshotPath('pipeline'), fullPage: true });
  });

  it('has no serious or critical accessibility violations on the Pipeline page (axe-core)', async () => {
    const violations = await axeViolations(pipeline);
    console.log(`axe, Pipeline page: ${JSON.stringify(describeViolations(violations))}`);
    expect(seriousOrCritical(violations)).toEqual([]);
  });

  it("reaches the pull request's link by Tab on the Pipeline page, with a visible focus", async () => {
    const seen: { what: string; visible: boolean }[] = [];
    await pipeline.locator('h1').click();
    for (let i = 0; i < 40 && !seen.some((s) => s.what === 'pull-request'); i++) {
      await pipeline.keyboard.press('Tab');
      seen.push(await pipeline.evaluate<{ what: string; visible: boolean }>(FOCUSED));
    }
    expect(seen.at(-1), JSON.stringify(seen)).toEqual({ what: 'pull-request', visible: true });
    expect(seen.filter((s) => !s.visible && s.what !== 'body')).toEqual([]);
  });

  it("opens the pull request's page on the forge from its link", async () => {
    // The link opens in the same tab: follow it in a second tab of the Pipeline's page, so the
    // first keeps its live stream for the next test.
    const forgePage = await context.newPage();
    await forgePage.goto(pipeline.url());
    const link = forgePage.locator('a[data-testid="pull-request"]').first();
    await Promise.all([forgePage.waitForURL(/\/acme\/fleet\/pull\/1$/), link.click()]);
    await forgePage.waitForLoadState();
    expect(forgePage.url()).toMatch(/\/acme\/fleet\/pull\/1$/);
    expect(await forgePage.textContent('[data-testid="pr-title"]')).toBe(
      'Promote podinfo/podinfo in prod to 6.6.0',
    );
    expect(await forgePage.textContent('[data-testid="pr-state"]')).toBe('Open');
    expect(await forgePage.textContent('[data-testid="pr-diff"]')).toMatch(/\+\s+version: 6\.6\.0/);
    await forgePage.screenshot({ path: screenshotPath('forge-pull-request'), fullPage: true });
    // The person merges it there; the page then shows it merged.
    await forgePage.click('[data-testid="merge"]');
    await forgePage.waitForURL(/\/pull\/1$/);
    expect(await forgePage.textContent('[data-testid="pr-state"]')).toBe('Merged');
    await forgePage.close();
  });

  it('catches up after its live stream is dropped: prod rolled out meanwhile shows', async () => {
    await mark(pipeline);
    // Merged a moment ago: the Flux stand-in applies it within 2 s, while the stream is down.
    expect(await decision('prod').getAttribute('data-outcome')).not.toBe('UpToDate');
    proxy.drop(4_000);
    await expect.poll(() => live(pipeline), { timeout: 5_000 }).toBe('reconnecting');
    // Meanwhile the merged request rolls prod out (the Flux stand-in reads Git).
    await expect
      .poll(() => demo.log().includes('demo flux: applied the merged version from Git'), {
        timeout: STORY_MS,
      })
      .toBe(true);
    await expect.poll(() => live(pipeline), { timeout: STORY_MS }).toBe('open');
    await expect
      .poll(() => decision('prod').getAttribute('data-outcome'), { timeout: STORY_MS })
      .toBe('UpToDate');
    expect(await stillMarked(pipeline)).toBe(true);
  });
});
