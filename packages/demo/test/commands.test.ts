/**
 * The demo's command line: every command answers --help, mistakes print the usage and exit
 * 2, and a command aimed at a port where no demo runs, or a demo started on a port in use,
 * exits 1 with one line saying what to do.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { main } from '../src/commands.js';
import { prettyLine } from '../src/pretty-log.js';
import { stateDir } from '../src/state.js';
import { freePort, io } from './io.js';

describe('demo commands', () => {
  it.each(['deploy', 'status', 'approve', 'promote', 'merge'])(
    '%s --help prints its usage, exit 0',
    async (name) => {
      const t = io();
      expect(await main([name, '--help'], t.io)).toBe(0);
      expect(t.out()).toMatch(new RegExp(`^Usage: demo ${name} `));
      expect(t.err()).toBe('');
    },
  );

  it('demo --help and demo help print the overview; the run command has its own', async () => {
    for (const argv of [['--help'], ['help'], ['-h']]) {
      const t = io();
      expect(await main(argv, t.io)).toBe(0);
      expect(t.out()).toContain('demo approve --env ENV --revision X');
      expect(t.out()).toContain('demo merge [--env prod]');
      expect(t.out()).toContain(
        'demo deploy [--app APP] --env ENV --version X [--fail | --break-after-promotion]',
      );
    }
    const run = io();
    expect(await main(['--port', '9', '--help'], run.io)).toBe(0);
    expect(run.out()).toMatch(/^Usage: demo \[--port 8080\]/);
  });

  it.each([
    [['bogus'], 'unknown command: bogus'],
    [['deploy', '--env', 'dev'], '--version is required'],
    [
      ['deploy', '--env', 'dev', '--version', '6.9.0; rm -rf /'],
      '--version must be a SemVer 2 chart version such as 6.6.0 or 6.7.0-rc.1 (no leading v), not "6.9.0; rm -rf /"',
    ],
    [['deploy', '--version', 'banana'], 'not "banana"'],
    [['deploy', '--version', 'v6.9.0'], 'not "v6.9.0"'],
    [['deploy', '--version', '6.9.0\n'], 'not "6.9.0\\u000A"'],
    [
      ['deploy', '--version', '6.9.0', '--fail', '--break-after-promotion'],
      '--fail and --break-after-promotion exclude each other',
    ],
    [
      ['deploy', '--env', 'staging', '--version', '6.9.0', '--break-after-promotion'],
      '--break-after-promotion needs --env dev: the version breaks staging once promoted there',
    ],
    [['deploy', '--app', 'cart', '--version', '1.0.0'], '--app must be one of podinfo, api, web'],
    [
      ['deploy', '--app', 'api', '--version', '1.0.0', '--break-after-promotion'],
      '--break-after-promotion is for podinfo only',
    ],
    [['approve', '--revision', '1'], '--env is required'],
    [['status', '--bogus'], "Unknown option '--bogus'"],
    [['status', '--port', 'http'], '--port must be a TCP port'],
    [['--log', 'fancy'], '--log must be pretty or json'],
  ])('%j: usage and exit 2', async (argv, message) => {
    const t = io();
    expect(await main(argv, t.io)).toBe(2);
    expect(t.err()).toContain(message);
    expect(t.err()).toContain('Usage:');
  });

  it('checks --version before looking for the demo: exit 2, not "no demo is running"', async () => {
    const port = await freePort();
    const t = io();
    const argv = ['deploy', '--env', 'dev', '--version', 'banana', '--port', String(port)];
    expect(await main(argv, t.io)).toBe(2);
    expect(t.err()).not.toContain('no demo is running');
    expect(t.err()).toContain('not "banana"');
  });

  it.each([
    ['status'],
    ['deploy', '--env', 'dev', '--version', '6.6.0'],
    ['approve', '--env', 'prod', '--revision', '1'],
    ['promote', '--env', 'prod', '--revision', '1'],
    ['merge', '--env', 'prod'],
  ])('%s without a running demo says to start one, exit 1', async (...argv) => {
    const port = await freePort();
    const t = io();
    expect(await main([...argv, '--port', String(port)], t.io)).toBe(1);
    expect(t.err()).toBe(
      `demo: no demo is running on port ${String(port)} (start it with \`npm start -- --port ${String(port)}\`)\n`,
    );
  });

  it('refuses to start on a port in use, at once, exit 1', async () => {
    const blocker = createServer();
    const port = await new Promise<number>((resolve) => {
      blocker.listen(0, '127.0.0.1', () => {
        const address = blocker.address();
        resolve(typeof address === 'object' && address !== null ? address.port : 0);
      });
    });
    try {
      const t = io();
      expect(await main(['--port', String(port), '--no-banner'], t.io)).toBe(1);
      expect(t.err()).toContain(`port ${String(port)} is in use: is a demo already running?`);
    } finally {
      blocker.close();
    }
  });

  it("refuses to start when the view's port is in use, naming it, exit 1", async () => {
    const blocker = createServer();
    const viewPort = await new Promise<number>((resolve) => {
      blocker.listen(0, '127.0.0.1', () => {
        const address = blocker.address();
        resolve(typeof address === 'object' && address !== null ? address.port : 0);
      });
    });
    try {
      const t = io();
      const port = await freePort();
      const argv = ['--port', String(port), '--view-port', String(viewPort), '--no-banner'];
      expect(await main(argv, t.io)).toBe(1);
      expect(t.err()).toContain(`port ${String(viewPort)} is in use: is a demo already running?`);
      const same = io();
      expect(await main(['--port', '9000', '--view-port', '9000'], same.io)).toBe(2);
      expect(same.err()).toContain('--view-port must differ from --port');
    } finally {
      blocker.close();
    }
  });

  it('keeps one state directory per port', () => {
    expect(stateDir(8080)).not.toBe(stateDir(8081));
    expect(stateDir(8080)).toMatch(/promotion-gateway-demo-[^/]+\/8080$/);
  });

  it('turns a JSON log line into a readable one', () => {
    const line = JSON.stringify({
      level: 30,
      time: Date.UTC(2026, 10, 24, 12, 4, 5),
      service: 'promotion-gateway',
      msg: 'promotion succeeded',
      environment: 'prod',
      note: 'two words',
    });
    expect(prettyLine(line)).toBe(
      '12:04:05 INFO  promotion succeeded  environment=prod note="two words"\n',
    );
    expect(prettyLine('not json\n')).toBe('not json\n');
  });
});
