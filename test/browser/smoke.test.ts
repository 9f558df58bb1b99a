/**
 * The browser harness itself: the system Chromium launches headless through playwright-core,
 * loads a page from a local server under the view's Content-Security-Policy, runs its module
 * script from 'self', refuses an inline one, and takes a screenshot.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, seriousOrCritical } from './support/axe.js';
import { launchChromium, screenshotPath, skipBrowserTests } from './support/chromium.js';

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>smoke</title>
<script type="module" src="/page.js"></script></head>
<body><main><h1 id="title">waiting</h1><script>document.title = 'inline ran';</script></main></body></html>`;

/** A page axe must fault: a button without a name, an image without a text alternative. */
const BAD_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bad</title></head>
<body><main><h1>bad</h1><button type="button"></button><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></main></body></html>`;

const SCRIPT = `document.getElementById('title').textContent = 'module ran';`;

let server: Server;
let base: string;
let browser: Browser;
const started = { server: false, browser: false };

describe.skipIf(skipBrowserTests())('the system Chromium', () => {
  beforeAll(async () => {
    server = createServer((req, res) => {
      const script = req.url === '/page.js';
      res.writeHead(200, {
        'content-type': script ? 'text/javascript' : 'text/html; charset=utf-8',
        'content-security-policy': CSP,
      });
      res.end(script ? SCRIPT : req.url === '/bad' ? BAD_PAGE : PAGE);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    started.server = true;
    base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
    browser = await launchChromium();
    started.browser = true;
  });
  afterAll(async () => {
    // Only what beforeAll got to start (a missing Chromium stops it half way).
    if (started.browser) await browser.close();
    if (started.server) await new Promise((resolve) => server.close(resolve));
  });

  it('runs the page module under the CSP, refuses inline script, and takes a screenshot', async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') violations.push(m.text());
    });
    await page.goto(`${base}/`);
    await expect.poll(() => page.textContent('#title')).toBe('module ran');
    expect(await page.title()).toBe('smoke');
    expect(violations.join('\n')).toContain('Content Security Policy');
    const file = screenshotPath('smoke');
    await page.screenshot({ path: file });
    expect(existsSync(file)).toBe(true);
    expect(browser.version()).toMatch(/^\d+\./);
    await page.close();
  });

  it('runs axe-core under that CSP, and it finds what is wrong', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/bad`);
    const found = seriousOrCritical(await axeViolations(page));
    expect(found.map((f) => f.split(':')[0])).toEqual(
      expect.arrayContaining(['critical button-name', 'critical image-alt']),
    );
    await page.close();
  });
});
