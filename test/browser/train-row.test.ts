/**
 * A release train on the fleet page in Chromium, against a gateway on kube-sim with a train of
 * two Pipelines (web after api), in a 1,280 px window: the train is one row, prod showing the
 * combination's digest shortened (copied whole), the release's state and what it waits for; the
 * row follows the release live without a reload, an opened detail stays open through updates;
 * nothing scrolls sideways; no serious or critical axe finding. Writes
 * test-results/ui/fleet-trains.png.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { combinationDigest } from '../../src/trains/combination-digest.js';
import {
  launchGateway,
  startTestFleet,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import { applyTrain, createTrainApps, rollApp } from '../support/train-rig.js';
import { axeViolations, describeViolations, seriousOrCritical } from './support/axe.js';
import { launchChromium, screenshotPath, skipBrowserTests } from './support/chromium.js';

const NS = 'shop';
const WAIT = { timeout: 20_000 };

let fleet: TestFleet;
let gateway: RunningGateway;
let browser: Browser;
let page: Page;
const cleanups: (() => Promise<unknown>)[] = [];

/** What the train's row shows of `env` (a string run in the page: tests have no DOM types). */
const shown = (env: string) =>
  page.evaluate<{ state: string; digest: string; waits: string; rows: number }>(`(() => {
    const box = document.querySelector('[data-train="${NS}/release"] [data-testid="train-env"][data-env="${env}"]');
    const text = (testid) => (box?.querySelector('[data-testid="' + testid + '"]')?.textContent ?? '').trim();
    return {
      state: text('train-state'),
      digest: box?.querySelector('[data-testid="train-digest"] [title]')?.getAttribute('title') ?? '',
      waits: text('train-waits'),
      rows: document.querySelectorAll('[data-testid="train-row"]').length,
    };
  })()`);

describe.skipIf(skipBrowserTests())('a release train on the fleet page, in Chromium', () => {
  beforeAll(async () => {
    fleet = await startTestFleet();
    cleanups.push(() => fleet.close());
    gateway = await launchGateway(fleet, { config: { ui: { port: 0, anonymous: true } } });
    cleanups.push(() => gateway.close());
    createTrainApps(fleet, NS, ['api', 'web']);
    applyTrain(fleet, NS, 'release', {
      members: [{ name: 'api' }, { name: 'web', dependsOn: ['api'] }],
      environments: ['prod'],
    });
    browser = await launchChromium();
    cleanups.push(() => browser.close());
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    page = await context.newPage();
    await page.goto(gateway.gateway.uiAddress() ?? '');
    await page.evaluate('globalThis.__notReloaded = true');
  });
  afterAll(async () => {
    for (const stop of cleanups.reverse()) await stop();
  });

  it('shows the train as one row, following its release live', async () => {
    const first = combinationDigest({ api: '6.5.0', web: '6.5.0' });
    await expect
      .poll(() => shown('prod'), WAIT)
      .toEqual({ state: 'Succeeded', digest: first, waits: '', rows: 1 });

    for (const env of ['dev', 'staging']) {
      rollApp(fleet, NS, env, 'api', '6.6.0');
      rollApp(fleet, NS, env, 'web', '6.6.0');
    }
    await gateway.gateway.resync();
    const next = combinationDigest({ api: '6.6.0', web: '6.6.0' });
    await expect
      .poll(() => shown('prod'), WAIT)
      .toMatchObject({
        state: 'Promoting',
        digest: next,
        waits: expect.stringMatching(/^waits for /),
      });
    expect(await page.evaluate('globalThis.__notReloaded === true')).toBe(true);
  });

  it('copies the whole digest, and keeps an opened detail open through an update', async () => {
    const row = page.locator(`[data-train="${NS}/release"]`);
    await row.locator('[data-env="prod"] button.copy').click();
    const copied = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(copied).toBe(combinationDigest({ api: '6.6.0', web: '6.6.0' }));

    await row.locator('details summary').click();
    await expect.poll(() => row.locator('details').getAttribute('open'), WAIT).toBe('');
    rollApp(fleet, NS, 'prod', 'api', '6.6.0');
    rollApp(fleet, NS, 'prod', 'web', '6.6.0');
    await gateway.gateway.resync();
    await expect.poll(async () => (await shown('prod')).state, WAIT).toBe('Succeeded');
    expect(await row.locator('details').getAttribute('open')).toBe('');
    await expect.poll(() => row.locator('details table').textContent(), WAIT).toContain('6.6.0');
  });

  it('fits 1,280 px and has no serious or critical axe finding', async () => {
    const sideways = await page.evaluate<number>(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    expect(sideways).toBeLessThanOrEqual(0);
    const violations = await axeViolations(page);
    expect(seriousOrCritical(violations), describeViolations(violations).join('\n')).toEqual([]);
    await page.screenshot({ path: screenshotPath('fleet-trains'), fullPage: true });
  });
});
