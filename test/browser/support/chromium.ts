/**
 * The browser tests' Chromium: Debian's `chromium` (installed by .ci/run with apt-get), driven
 * by playwright-core (never a browser downloaded by `playwright install`), headless, with a fresh
 * profile per launch and nothing that phones home. Where it is missing, CI (CI=true) fails with
 * a message saying how to install it; elsewhere the tests are skipped with that note.
 */
import { accessSync, constants, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** Where Debian's package puts it. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** The flags every launch uses: headless, no GPU, no background traffic, no first-run UI. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-quic',
  '--disable-sync',
];

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** Where screenshots go (CI keeps the folder as an artifact; .gitignore leaves it out). */
export const SCREENSHOT_DIR = join(ROOT, 'test-results', 'ui');

/** The screenshots the README and docs/ui.md show, which the tests that take them refresh. */
export const DOCS_IMAGES_DIR = join(ROOT, 'docs', 'images');

const MISSING = `Chromium is not installed at ${CHROMIUM_PATH}: the browser tests drive Debian's chromium package (apt-get install chromium; .ci/run installs it)`;

/** Whether the system Chromium is there to run. */
export function chromiumInstalled(): boolean {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether this run skips the browser tests: only outside CI, and only when Chromium is missing
 * (said once on stderr, so a skipped run is not mistaken for a passing one).
 */
export function skipBrowserTests(): boolean {
  if (chromiumInstalled() || process.env.CI === 'true') return false;
  process.stderr.write(`browser tests skipped: ${MISSING}\n`);
  return true;
}

/**
 * Launches the system Chromium (playwright gives each launch a fresh temporary profile, removed
 * on close); a clear error when it is missing, so CI fails saying what to install.
 */
export async function launchChromium(): Promise<Browser> {
  if (!chromiumInstalled()) throw new Error(MISSING);
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 30_000 });
}

/**
 * Where the docs' screenshot `name` (.png) is taken to: docs/images with UPDATE_SCREENSHOTS=1
 * (the run that refreshes the README's pictures), else beside the other screenshots, so that a
 * test run leaves the tracked images alone (the page shows times and ports that differ each run).
 */
export function docsImagePath(name: string): string {
  if (process.env.UPDATE_SCREENSHOTS === '1') return join(DOCS_IMAGES_DIR, `${name}.png`);
  return screenshotPath(`docs-${name}`);
}

/** The path of screenshot `name` (.png), its folder created. */
export function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return join(SCREENSHOT_DIR, `${name}.png`);
}
