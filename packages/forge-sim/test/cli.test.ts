/**
 * `runForge` (the `forge-sim` command): starts a forge with the repositories, protections and
 * tokens asked for, prints where everything is, and stops cleanly on its abort signal.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runForge } from '../src/index.js';
import { git, gitTestEnv } from './helpers.js';

describe('runForge', () => {
  it('serves the forge until aborted', async () => {
    const out = new PassThrough();
    let printed = '';
    out.on('data', (c: Buffer) => (printed += c.toString('utf8')));
    const stop = new AbortController();
    const args = [
      '--kind',
      'gitlab',
      '--repo',
      'acme/platform/fleet',
      '--token',
      'bot',
      '--protect',
      'acme/platform/fleet:main',
    ];
    const running = runForge(args, out, { signal: stop.signal });
    try {
      await new Promise<void>((resolve) => {
        const check = (): void => {
          if (printed.includes('forge-sim running')) resolve();
        };
        out.on('data', check);
        check();
      });
      const url = /forge-sim gitlab: (http:\/\/127\.0\.0\.1:\d+)/.exec(printed)?.[1] ?? '';
      const token = /forge-sim token bot: (\S+)/.exec(printed)?.[1] ?? '';
      expect(printed).toContain(
        `forge-sim repository acme/platform/fleet: ${url}/acme/platform/fleet.git`,
      );
      const project = await fetch(`${url}/api/v4/projects/acme%2Fplatform%2Ffleet`, {
        headers: { 'private-token': token },
      });
      expect(project.status).toBe(200);
      const env = await gitTestEnv();
      const remote = `${url.replace('://', `://oauth2:${token}@`)}/acme/platform/fleet.git`;
      const listed = await git(['ls-remote', remote, 'main'], env.HOME ?? '/', env);
      expect(listed.stdout).toMatch(/^[0-9a-f]{40}\trefs\/heads\/main/);
      const faults = await fetch(`${url}/_forge/faults`);
      expect(((await faults.json()) as { faults: unknown }).faults).toEqual({});
    } finally {
      stop.abort();
      await running;
    }
    expect(printed).toContain('forge-sim stopped');
  });

  it('rejects a bad kind or port before starting anything', async () => {
    await expect(runForge(['--kind', 'gitea'], new PassThrough())).rejects.toThrow(
      '--kind must be github or gitlab',
    );
    await expect(runForge(['--port', 'x'], new PassThrough())).rejects.toThrow(
      '--port must be a port number',
    );
  });
});
