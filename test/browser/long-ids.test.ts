/**
 * A Pipeline page whose revisions are Git and OCI digests (`main@sha1:<40 hex>`,
 * `sha256:<64 hex>`) and whose approvals carry long statement ids and principals, in a 1,280 px
 * window: the ids are shortened (the whole value in the title), nothing scrolls sideways, a copy
 * button copies a revision whole; with scripts off the picture is still drawn and no copy
 * button shows. The view (buildUi) serves a synthetic Pipeline (test/support/ui-fleet.ts); the
 * page is left in test-results/ui/long-ids.png.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realScheduler } from '../../src/clock.js';
import { defaultConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { buildUi, type UiApp } from '../../src/ui/app.js';
import { FakeFleetSource, UI_T0 } from '../support/ui-fleet.js';
import { launchChromium, screenshotPath, skipBrowserTests } from './support/chromium.js';
import { clickCopy } from './support/copy-button.js';

const GIT = `main@sha1:${'0123456789abcdef'.repeat(2)}01234567`;
const OCI = `sha256:${'fedcba9876543210'.repeat(4)}`;
const JTI = 'approval-statement-7f3e2d1c-9b8a-4c5d-8e7f-6a5b4c3d2e1f';
const PATH = '/pipelines/team-long/app-digests';

let ui: UiApp;
let url: string;
let browser: Browser;
const started = { ui: false, browser: false };

/** How far the page, and each table region, is wider than its box (0 when it fits). */
const SIDEWAYS = `(() => {
  const root = document.documentElement;
  return [root.scrollWidth - root.clientWidth,
    ...[...document.querySelectorAll('.scroll')].map((e) => e.scrollWidth - e.clientWidth)];
})()`;

describe.skipIf(skipBrowserTests())('a Pipeline page of long ids, in Chromium', () => {
  beforeAll(async () => {
    const source = new FakeFleetSource();
    const id = source.put({
      namespace: 'team-long',
      name: 'app-digests',
      revision: GIT,
      previous: OCI,
      waiting: true,
    });
    const prod = source.pipelines.get(id)?.status?.environments?.prod;
    if (prod === undefined) throw new Error('no prod');
    prod.approvals = [
      {
        principal: 'release-manager-for-the-payments-platform@example.com',
        kind: 'human',
        decision: 'approve',
        revision: GIT,
        time: new Date(UI_T0).toISOString(),
        jti: JTI,
        statement: 'x.y.z',
      },
    ];
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
  });
  afterAll(async () => {
    if (started.browser) await browser.close();
    if (started.ui) await ui.app.close();
  });

  it('shortens the ids, fits 1,280 px, and copies a revision whole', async () => {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    const page = await context.newPage();
    await page.goto(`${url}${PATH}`);
    const picture = page.locator('[data-testid="picture-env"][data-env="dev"] .id');
    expect(await picture.getAttribute('title')).toBe(GIT);
    expect(await picture.textContent()).toBe('main@sha1:0123456…');
    expect(await page.evaluate<number[]>(SIDEWAYS)).toEqual([0, 0, 0, 0, 0]);
    const statement = page.locator('[data-testid="gate"] td.rev .id').last();
    expect(await statement.getAttribute('title')).toBe(JTI);
    const button = page.locator(`[data-testid="environment"][data-env="dev"] button.copy`);
    await clickCopy(button);
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(GIT);
    await page.screenshot({ path: screenshotPath('long-ids'), fullPage: true });
    await context.close();
  });

  it('draws the picture without scripts, and shows no copy button then', async () => {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      javaScriptEnabled: false,
    });
    const page = await context.newPage();
    await page.goto(`${url}${PATH}`);
    expect(await page.locator('[data-testid="picture-env"]').count()).toBe(3);
    expect(
      await page
        .locator('[data-env="prod"] [data-testid="picture-edge"]')
        .getAttribute('data-state'),
    ).toBe('waiting');
    expect(await page.locator('button.copy').count()).toBeGreaterThan(0);
    for (const button of await page.locator('button.copy').all())
      expect(await button.isVisible()).toBe(false);
    expect(await page.evaluate<number[]>(SIDEWAYS)).toEqual([0, 0, 0, 0, 0]);
    await context.close();
  });
});
