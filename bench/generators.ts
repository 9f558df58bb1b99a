/**
 * Two standard, independent HTTP load generators behind one small interface, so calibrate.ts
 * can check that the ratios bench/run.ts reports come from the servers, not from its own
 * raw-socket client: autocannon (Node.js, in this process) and wrk (C, a child process, only
 * when it is on PATH).
 */
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import type { SignedEvent } from './gateway-types.js';

/** Where to send the event: every request is the same signed POST. */
export interface Target {
  host: string;
  port: number;
  event: SignedEvent;
}

/** How hard and how long to drive a target. */
export interface LoadShape {
  connections: number;
  durationMs: number;
}

/** What one run measured. */
export interface GeneratorResult {
  /** Responses per second, whatever their status (valid only when non2xx and errors are 0). */
  rps: number;
  /** 99th percentile latency, ms. */
  p99Ms: number;
  /** Responses that were not 2xx (for wrk: status >= 400, all it counts). */
  non2xx: number;
  /** Connection errors and timeouts: requests that got no response. */
  errors: number;
}

/** A load generator: drives `target` for `load.durationMs` over `load.connections` sockets. */
export interface Generator {
  name: string;
  run(target: Target, load: LoadShape): Promise<GeneratorResult>;
}

/** autocannon in this process, one request in flight per connection (as the harness does). */
export const autocannonGenerator: Generator = {
  name: 'autocannon',
  async run({ host, port, event }, { connections, durationMs }) {
    const result = await autocannon({
      url: `http://${host}:${port}${event.path}`,
      method: 'POST',
      headers: event.headers,
      body: event.body,
      connections,
      duration: durationMs / 1000,
      pipelining: 1,
    });
    return {
      rps: result.requests.average,
      p99Ms: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors,
    };
  },
};

/** `text` as a Lua string literal: printable ASCII as is, every other byte as a \ddd escape. */
export function luaString(text: string): string {
  let literal = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const plain = byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c;
    // Always three digits, so a digit that follows is never read as part of the escape.
    literal += plain ? String.fromCharCode(byte) : `\\${String(byte).padStart(3, '0')}`;
  }
  return `"${literal}"`;
}

const TIME_UNITS_MS: Record<string, number> = {
  us: 0.001,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** The figures in wrk's report (`--latency`); throws when a required one is missing. */
export function parseWrkOutput(output: string): GeneratorResult {
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(output)?.[1];
  const p99 = /^\s*99%\s+([\d.]+)(us|ms|s|m|h)\s*$/m.exec(output);
  if (rps === undefined || p99?.[1] === undefined || p99[2] === undefined)
    throw new Error(`wrk: no Requests/sec or 99% latency in its output:\n${output}`);
  // wrk prints these two lines only when they are not zero.
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(output)?.[1] ?? '0';
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(
    output,
  );
  const errors = (socket?.slice(1) ?? []).reduce((sum, n) => sum + Number(n), 0);
  return {
    rps: Number(rps),
    p99Ms: Number(p99[1]) * (TIME_UNITS_MS[p99[2]] ?? Number.NaN),
    non2xx: Number(non2xx),
    errors,
  };
}

/** The first executable called `name` on PATH, or undefined. */
async function onPath(name: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter((d) => d !== '')) {
    const candidate = join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; try the next directory
    }
  }
  return undefined;
}

/** wrk as a child process with one thread, or undefined when `wrk` is not on PATH. */
export async function wrkGenerator(): Promise<(Generator & { path: string }) | undefined> {
  const path = await onPath('wrk');
  if (path === undefined) return undefined;
  return {
    name: 'wrk',
    path,
    async run({ host, port, event }, { connections, durationMs }) {
      // wrk only takes whole seconds; a silently rounded duration would skew the comparison.
      if (durationMs % 1000 !== 0) throw new Error(`wrk: ${durationMs} ms is not whole seconds`);
      const script = [
        'wrk.method = "POST"',
        `wrk.body = ${luaString(event.body)}`,
        ...Object.entries(event.headers).map(
          ([name, value]) => `wrk.headers[${luaString(name)}] = ${luaString(value)}`,
        ),
      ].join('\n');
      const dir = await mkdtemp(join(tmpdir(), 'calibrate-wrk-'));
      try {
        const lua = join(dir, 'event.lua');
        await writeFile(lua, `${script}\n`);
        const args = ['-t1', `-c${connections}`, `-d${durationMs / 1000}s`, '--latency', '-s', lua];
        const { stdout } = await promisify(execFile)(
          path,
          [...args, `http://${host}:${port}${event.path}`],
          { timeout: durationMs + 30_000, killSignal: 'SIGKILL' },
        );
        return parseWrkOutput(stdout);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
