/**
 * `diff` and `approvals sign` over a preview: a small loopback server answers the preview door
 * as the gateway does, so the commands' rendering (colour on a terminal, plain otherwise or with
 * NO_COLOR, --json) and the digest they sign are checked end to end in process.
 */
import { PassThrough } from 'node:stream';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runApprovals } from '../../../src/cli/approvals.js';
import { runDiff } from '../../../src/cli/diff.js';
import type { Preview } from '../../../src/preview/previewer.js';
import { startJsonGateway, type JsonGateway } from '../../support/json-gateway.js';
import { tempDir } from '../../support/temp-dirs.js';

const DIGEST = `sha256:${'a'.repeat(64)}`;
const PREVIEW: Preview = {
  pipeline: { namespace: 'apps', name: 'podinfo' },
  environment: 'prod',
  revision: '6.6.0',
  moves: [
    {
      target: 'prod/apps/podinfo',
      from: '6.5.0',
      to: '6.6.0',
      source: { kind: 'HelmRepository', name: 'podinfo', chart: 'podinfo' },
    },
  ],
  change: {
    kind: 'pull-request',
    repository: 'https://forge.example.com/acme/fleet',
    baseBranch: 'main',
    baseCommit: 'c0ffee',
    branch: 'promotion-apps-podinfo-prod',
    files: [
      {
        path: 'envs/prod/podinfo.yaml',
        // A repository's bytes may hold ESC: the terminal must never get it raw.
        diff: '--- a/envs/prod/podinfo.yaml\n+++ b/envs/prod/podinfo.yaml\n@@ -1,1 +1,1 @@\n-version: 6.5.0 \u001b[2J\n+version: 6.6.0\n',
      },
    ],
    truncated: false,
  },
  digest: DIGEST,
  summary: 'prod: 6.5.0 -> 6.6.0 by pull request on main (1 file)',
};

let gateway: JsonGateway;
let url: string;
let seen: JsonGateway['seen'];

beforeAll(async () => {
  gateway = await startJsonGateway((req) => {
    const ok = req.headers.authorization === 'Bearer reader' && req.url?.endsWith('/prod/preview');
    return ok === true
      ? { status: 200, body: PREVIEW }
      : { status: 409, body: { code: 'NotWaiting', message: 'staging has no pending promotion' } };
  });
  ({ url, seen } = gateway);
});
afterAll(() => gateway.close());

/** A captured output stream, a terminal or not. */
function output(tty: boolean) {
  const out = new PassThrough() as PassThrough & { isTTY?: boolean };
  if (tty) out.isTTY = true;
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return { out, text: () => text };
}

async function diff(args: string[], env: Record<string, string> = {}, tty = false) {
  const { out, text } = output(tty);
  const code = await runDiff(args, { env: { PROMOTION_GATEWAY_TOKEN: 'reader', ...env }, out });
  return { code, out: text() };
}

describe('diff', () => {
  it('prints the preview plain when not on a terminal, the terminal-driving bytes neutralized', async () => {
    const { code, out } = await diff(['apps/podinfo', 'prod', '--gateway', url]);
    expect(code).toBe(0);
    expect(out).not.toContain('\u001b');
    expect(out).toContain(
      'apps/podinfo prod: prod: 6.5.0 -> 6.6.0 by pull request on main (1 file)',
    );
    expect(out).toContain(`digest ${DIGEST}`);
    expect(out).toContain(
      'prod/apps/podinfo: 6.5.0 -> 6.6.0 from HelmRepository podinfo (podinfo)',
    );
    expect(out).toContain('-version: 6.5.0 \ufffd[2J\n+version: 6.6.0\n');
    expect(seen.at(-1)).toEqual({
      path: '/v1/pipelines/apps/podinfo/environments/prod/preview',
      authorization: 'Bearer reader',
    });
  });

  it('colours on a terminal, and not with NO_COLOR', async () => {
    const args = ['apps/podinfo', 'prod', '--gateway', url];
    const coloured = await diff(args, {}, true);
    expect(coloured.out).toContain('\u001b[31m-version: 6.5.0 \ufffd[2J\u001b[0m');
    expect(coloured.out).toContain('\u001b[32m+version: 6.6.0\u001b[0m');
    expect(coloured.out).toContain('\u001b[36m@@ -1,1 +1,1 @@\u001b[0m');
    const plain = await diff(args, { NO_COLOR: '1' }, true);
    expect(plain.out).not.toContain('\u001b');
  });

  it('prints the preview itself with --json', async () => {
    const { code, out } = await diff(['apps/podinfo', 'prod', '--json'], {
      PROMOTION_GATEWAY_URL: url,
    });
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual(PREVIEW);
  });

  it("exits 1 with the gateway's reason when there is no preview, 2 for a mistake", async () => {
    const none = await diff(['apps/podinfo', 'staging', '--gateway', url]);
    expect(none).toEqual({
      code: 1,
      out: 'the gateway answered 409: staging has no pending promotion\n',
    });
    expect((await diff(['apps/podinfo'])).code).toBe(2);
    const noToken = await runDiff(['apps/podinfo', 'prod', '--gateway', url], {
      env: {},
      out: new PassThrough(),
    });
    expect(noToken).toBe(2);
  });
});

describe('approvals sign over a preview', () => {
  async function sign(extra: string[]) {
    const dir = tempDir('preview-sign-');
    const quiet = new PassThrough();
    expect(await runApprovals(['keygen', '--name', 'alice', '--out', dir], {}, quiet)).toBe(0);
    const { out, text } = output(false);
    const args = ['sign', '--name', 'alice', '--key', `${dir}/alice.key.pem`];
    const target = ['--pipeline', 'apps/podinfo', '--env', 'prod', '--gateway', url];
    const code = await runApprovals(
      [...args, ...target, ...extra],
      { PROMOTION_GATEWAY_TOKEN: 'reader' },
      out,
    );
    return { code, out: text() };
  }

  it('carries the digest of the preview by default, and none with --no-preview', async () => {
    const withDigest = await sign(['--revision', '6.6.0']);
    expect(withDigest.code).toBe(0);
    expect(decodeJwt(withDigest.out.trim())).toMatchObject({
      revision: '6.6.0',
      previewDigest: DIGEST,
    });
    const without = await sign(['--revision', '6.6.0', '--no-preview']);
    expect(decodeJwt(without.out.trim()).previewDigest).toBeUndefined();
  });

  it('refuses to sign a revision the gateway is not previewing', async () => {
    const other = await sign(['--revision', '6.7.0']);
    expect(other).toEqual({
      code: 1,
      out: "error: prod's pending promotion is of 6.6.0, not 6.7.0\n",
    });
  });
});
