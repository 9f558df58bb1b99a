/**
 * What the command lines print never holds a URL's credentials: `--send` URLs with a userinfo
 * (which fetch refuses, quoting the URL) and the pull request links `status` shows, whatever
 * they hold, are printed with `[REDACTED]` in place of the password, token or signature.
 */
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runApprovals } from '../../../src/cli/approvals.js';
import { runHalts } from '../../../src/cli/halts.js';
import { renderDetail, renderTable, environmentRows } from '../../../src/cli/status-view.js';
import type { PipelineStatus } from '../../../src/pipeline/pipeline-resource.js';
import { samplePipeline } from '../../support/pipeline-fixtures.js';
import { tempDir } from '../../support/temp-dirs.js';

async function run(
  runner: typeof runHalts,
  ...args: string[]
): Promise<{ code: number; out: string }> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const code = await runner(args, {}, out);
  return { code, out: text };
}

async function carolKey(): Promise<string> {
  const dir = tempDir('credentials-output-');
  expect((await run(runApprovals, 'keygen', '--name', 'carol', '--out', dir)).code).toBe(0);
  return join(dir, 'carol.key.pem');
}

const SECRET = /S3cret|T0ken/;

describe('--send URLs holding credentials', () => {
  it('halts sign names each gateway, and the failure, without them', async () => {
    const key = await carolKey();
    const result = await run(
      runHalts,
      ...['sign', '--name', 'carol', '--key', key, '--pipeline', 'apps/podinfo'],
      ...['--reason', 'incident 42'],
      ...['--send', 'https://ops:S3cret@gw-eu.example.com', '--send', 'https://gw-us.example.com'],
    );
    expect(result.code).toBe(1);
    expect(result.out).toContain('https://[REDACTED]@gw-eu.example.com: ');
    expect(result.out).toMatch(/^.*error: .*credentials: https:\/\/\[REDACTED\]@gw-eu/m);
    expect(result.out).not.toMatch(SECRET);
  });

  it('approvals sign reports fetch refusing the URL without its password', async () => {
    const key = await carolKey();
    const result = await run(
      runApprovals,
      ...['sign', '--name', 'carol', '--key', key, '--pipeline', 'apps/podinfo', '--env', 'prod'],
      ...['--revision', '6.6.0', '--no-preview'],
      ...['--send', 'https://ops:S3cret@gw.example.com/?token=T0ken'],
    );
    expect(result.code).toBe(1);
    expect(result.out).toContain('https://[REDACTED]@gw.example.com/');
    expect(result.out).not.toMatch(SECRET);
  });
});

describe('status: pull request links', () => {
  const NOW = Date.parse('2026-11-25T12:00:00Z');
  const url = 'https://x-access-token:S3cret@forge.example.com/acme/fleet/pull/7?token=T0ken';
  const status: PipelineStatus = {
    environments: {
      prod: {
        targets: [],
        promotion: {
          revision: '6.6.0',
          lastAttemptedTime: '2026-11-24T10:00:00Z',
          succeeded: true,
          phase: 'Succeeded',
          pullRequest: { url, state: 'open' },
        },
      },
    },
  };

  it('shows the link in the table and the detail without its credentials', () => {
    const pipeline = samplePipeline(status);
    const table = renderTable(environmentRows([pipeline], NOW));
    const detail = renderDetail(pipeline, NOW);
    const shown = 'https://[REDACTED]@forge.example.com/acme/fleet/pull/7?token=[REDACTED] (open)';
    expect(table).toContain(shown);
    expect(detail).toContain(`pull request ${shown}`);
    expect(table + detail).not.toMatch(SECRET);
  });
});
