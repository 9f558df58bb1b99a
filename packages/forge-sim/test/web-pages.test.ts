/**
 * The pull-request pages a person opens from the REST answers' links: GitHub's `html_url` and
 * GitLab's `web_url` answer a page with the request's title, state, branches and changes (never
 * a token), escaped; the merge button lands it like `forge.merge()`; anything else stays 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ForgeHandle, ForgeKind } from '../src/index.js';
import { startForge } from '../src/index.js';
import { call, DEV_VALUES } from './helpers.js';

const BRANCH = 'promotion-apps-podinfo-dev';
const TITLE = 'Promote apps/podinfo in dev to 6.5.1 <script>alert(1)</script>';

interface Setup {
  kind: ForgeKind;
  repo: string;
  /** Opens a request from BRANCH onto main through REST; its web link. */
  open: (forge: ForgeHandle, token: string) => Promise<string>;
}

const SETUPS: Setup[] = [
  {
    kind: 'github',
    repo: 'acme/fleet',
    open: async (forge, token) => {
      const body = { title: TITLE, head: BRANCH, base: 'main', body: 'weave metadata' };
      const r = await call(forge, '/repos/acme/fleet/pulls', { method: 'POST', token, body });
      expect(r.status).toBe(201);
      return (r.json as { html_url: string }).html_url;
    },
  },
  {
    kind: 'gitlab',
    repo: 'acme/platform/fleet',
    open: async (forge, token) => {
      const body = { title: TITLE, source_branch: BRANCH, target_branch: 'main' };
      const path = `/projects/${encodeURIComponent('acme/platform/fleet')}/merge_requests`;
      const r = await call(forge, path, { method: 'POST', token, body });
      expect(r.status).toBe(201);
      return (r.json as { web_url: string }).web_url;
    },
  },
];

describe.each(SETUPS)('$kind pull-request pages', ({ kind, repo, open }) => {
  let forge: ForgeHandle;
  let token: string;
  let link: string;

  beforeAll(async () => {
    forge = await startForge({ kind });
    await forge.createRepo(repo, { 'envs/dev/podinfo.yaml': DEV_VALUES });
    token = forge.addToken('promoter');
    await forge.commit(
      repo,
      BRANCH,
      { 'envs/dev/podinfo.yaml': DEV_VALUES.replace('6.5.0', '6.5.1') },
      'Promote apps/podinfo in dev to 6.5.1',
    );
    link = await open(forge, token);
  });
  afterAll(async () => {
    await forge.close();
  });

  it('answers the request link with a page: title, state, branches and the change', async () => {
    forge.requests.reset();
    const res = await fetch(link);
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(html).toContain(
      '<span data-testid="pr-title">Promote apps/podinfo in dev to 6.5.1 &#60;script&#62;alert(1)&#60;/script&#62;</span>',
    );
    expect(html).not.toContain('<script>');
    expect(html).toContain('<strong data-testid="pr-state" class="state open">Open</strong>');
    expect(html).toContain(`<code data-testid="pr-head">${BRANCH}</code>`);
    expect(html).toContain('<code data-testid="pr-base">main</code>');
    expect(html).toMatch(/-\s+version: 6\.5\.0[^\n]*\n\+\s+version: 6\.5\.1/);
    expect(html).toContain('data-testid="merge"');
    expect(html).not.toContain(token);
    expect(forge.requests.snapshot().byScope).toMatchObject({ web: 1, api: 0, git: 0 });
  });

  it('merges through its button, then shows the request merged without a button', async () => {
    const merged = await fetch(`${link}/merge`, { method: 'POST', redirect: 'manual' });
    expect(merged.status).toBe(303);
    expect(new URL(merged.headers.get('location') ?? '', link).href).toBe(link);
    expect(forge.pullRequests(repo)[0]?.state).toBe('merged');
    expect(await forge.readFile(repo, 'main', 'envs/dev/podinfo.yaml')).toContain('6.5.1');
    const html = await (await fetch(link)).text();
    expect(html).toContain('class="state merged">Merged</strong>');
    expect(html).not.toContain('data-testid="merge"');
    // Pressed again: refused, and said so on the page.
    const again = await fetch(`${link}/merge`, { method: 'POST', redirect: 'manual' });
    expect(again.status).toBe(409);
    expect(await again.text()).toContain('Not merged: the pull request is not open.');
  });

  it('answers 404 for a request or repository that does not exist, and GET on the button', async () => {
    const other = link.replace(/\d+$/, '99');
    expect((await fetch(other)).status).toBe(404);
    expect((await fetch(link.replace(repo, 'acme/nothing'))).status).toBe(404);
    expect((await fetch(`${link}/merge`)).status).toBe(404);
  });
});
