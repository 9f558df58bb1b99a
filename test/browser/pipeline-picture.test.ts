/**
 * The demo's Pipeline page in Chromium, in a 1,280 px window: its picture shows each
 * environment's revision and what it waits for, and follows the story live (an approval marks
 * the promotion into prod in flight, the merged pull request's rollout puts prod at the new
 * revision and the arrow at rest) without a reload; the arrow in flight moves only when the
 * reader allows motion; nothing scrolls sideways; a shortened statement id copies whole; light
 * and dark themes follow the system, each without a serious or critical axe finding on either
 * page. Writes the README's screenshot of the page (docs/images/ui-pipeline.png) and its dark
 * twin (test-results/ui/pipeline-dark.png).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, describeViolations, seriousOrCritical } from './support/axe.js';
import {
  docsImagePath,
  launchChromium,
  screenshotPath,
  skipBrowserTests,
} from './support/chromium.js';
import { clickCopy } from './support/copy-button.js';
import { startDemo, type TestDemo } from './support/demo.js';

const PIPELINE = 'podinfo/podinfo';
/** Long enough for dev's 5 s soak, the promotion and the Flux stand-in on two busy cores. */
const STORY_MS = 30_000;

let demo: TestDemo;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const cleanups: (() => Promise<unknown>)[] = [];

/** One environment as the picture shows it: revision, words, and the arrow into it. */
interface Pictured {
  revision: string;
  wait: string;
  edge: string | null;
  carried: string | null;
}

/** What the picture shows of `env` now (a string run in the page: tests have no DOM types). */
const pictured = (env: string): Promise<Pictured> =>
  page.evaluate<Pictured>(`(() => {
    const box = document.querySelector('[data-testid="picture-env"][data-env=${JSON.stringify(env)}]');
    const edge = box?.querySelector('[data-testid="picture-edge"]');
    const text = (testid) => (box?.querySelector('[data-testid="' + testid + '"]')?.textContent ?? '').trim();
    return {
      revision: text('picture-revision'),
      wait: text('picture-wait'),
      edge: edge?.getAttribute('data-state') ?? null,
      carried: edge?.getAttribute('data-revision') ?? null,
    };
  })()`);

/** Whether the page (or any table region in it) is wider than the window. */
const SIDEWAYS = `(() => {
  const root = document.documentElement;
  const regions = [...document.querySelectorAll('.scroll')]
    .filter((e) => e.scrollWidth > e.clientWidth)
    .map((e) => e.getAttribute('aria-label') + ': ' + e.scrollWidth + ' > ' + e.clientWidth);
  return { page: root.scrollWidth - root.clientWidth, regions, checked: document.querySelectorAll('.scroll').length };
})()`;

async function mark(): Promise<void> {
  await page.evaluate('globalThis.__notReloaded = true');
}
const stillMarked = () => page.evaluate('globalThis.__notReloaded === true');

describe.skipIf(skipBrowserTests())("the demo's Pipeline page and its picture, in Chromium", () => {
  beforeAll(async () => {
    demo = await startDemo();
    cleanups.push(() => demo.stop());
    browser = await launchChromium();
    cleanups.push(() => browser.close());
    context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    page = await context.newPage();
    expect((await demo.command('deploy', '--env', 'dev', '--version', '6.6.0')).code).toBe(0);
    await page.goto(`${demo.state.viewUrl}/pipelines/${PIPELINE}`);
  });
  afterAll(async () => {
    for (const stop of cleanups.reverse()) await stop();
  });

  it("shows each environment's revision and what it waits for, prod's arrow waiting", async () => {
    await mark();
    // The words follow this replica's decisions, the revisions the stored status: both settle.
    const all = async () => ({
      dev: await pictured('dev'),
      staging: await pictured('staging'),
      prod: await pictured('prod'),
    });
    await expect.poll(all, { timeout: STORY_MS }).toEqual({
      dev: { revision: '6.6.0', wait: 'source', edge: null, carried: null },
      staging: { revision: '6.6.0', wait: 'up to date', edge: 'idle', carried: '' },
      prod: {
        revision: '6.5.0',
        wait: expect.stringMatching(/^waiting for approval of 6\.6\.0 \(0 of 1 approvals?\)$/),
        edge: 'waiting',
        carried: '6.6.0',
      },
    });
    expect(await stillMarked()).toBe(true);
  });

  it('marks the promotion into prod in flight once the approver approves, without a reload', async () => {
    expect((await demo.command('approve', '--env', 'prod', '--revision', '6.6.0')).code).toBe(0);
    await expect
      .poll(() => pictured('prod'), { timeout: 10_000 })
      .toEqual({
        revision: '6.5.0',
        wait: 'pull request open for 6.6.0',
        edge: 'flight',
        carried: '6.6.0',
      });
    expect(await stillMarked()).toBe(true);
  });

  it('moves the arrow in flight only when the reader allows motion', async () => {
    const line = '[data-env="prod"] [data-testid="picture-edge"] .line';
    const animation = () =>
      page.evaluate<string>(`getComputedStyle(document.querySelector('${line}')).animationName`);
    await page.emulateMedia({ reducedMotion: 'reduce' });
    expect(await animation()).toBe('none');
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    expect(await animation()).toBe('flow');
  });

  it('fits a 1,280 px window: neither the page nor any table region scrolls sideways', async () => {
    const sideways = await page.evaluate<{ page: number; regions: string[]; checked: number }>(
      SIDEWAYS,
    );
    expect(sideways.checked).toBeGreaterThanOrEqual(4);
    expect(sideways).toMatchObject({ page: 0, regions: [] });
  });

  it('copies a shortened statement id whole', async () => {
    const button = page.locator('[data-testid="gate"] td button.copy').first();
    expect(await button.isVisible()).toBe(true);
    const whole = await button.getAttribute('data-copy');
    const shown = await page.locator('[data-testid="gate"] td .id[title]').last().textContent();
    expect(whole).toMatch(/^[0-9a-f-]{36}$/);
    expect(shown).toBe(`${whole?.slice(0, 8) ?? ''}…${whole?.slice(-4) ?? ''}`);
    await clickCopy(button);
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(whole);
  });

  it('follows the system theme, light and dark, with no serious or critical axe finding', async () => {
    const fleet = await context.newPage();
    await fleet.goto(`${demo.state.viewUrl}/`);
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const p of [page, fleet]) {
        await p.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
        const background = await p.evaluate(
          'getComputedStyle(document.documentElement).backgroundColor',
        );
        expect(background).toBe(colorScheme === 'light' ? 'rgb(255, 255, 255)' : 'rgb(13, 17, 23)');
        const violations = await axeViolations(p);
        console.log(
          `axe, ${colorScheme}, ${p.url()}: ${JSON.stringify(describeViolations(violations))}`,
        );
        expect(seriousOrCritical(violations)).toEqual([]);
      }
    }
    await fleet.close();
  });

  it("takes the README's screenshot of the page, and its dark twin", async () => {
    await page.evaluate('document.activeElement?.blur()');
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme, reducedMotion: 'no-preference' });
      const path =
        colorScheme === 'light' ? docsImagePath('ui-pipeline') : screenshotPath('pipeline-dark');
      await page.screenshot({ path, animations: 'disabled' });
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('puts prod at 6.6.0 and its arrow at rest once the merged request rolls out', async () => {
    expect((await demo.command('merge', '--env', 'prod')).code).toBe(0);
    await expect
      .poll(() => pictured('prod'), { timeout: STORY_MS })
      .toEqual({
        revision: '6.6.0',
        wait: 'up to date',
        edge: 'idle',
        carried: '',
      });
    expect(await stillMarked()).toBe(true);
  });
});
