/**
 * The documented request timeout is the measured one: a client that sends its headers, or its
 * body (Content-Length or chunked), too slowly is answered 408 with the registry's body within a
 * second of `server.requestTimeoutMs`; and what Node itself would answer (a malformed request
 * line, HTTP/1.1 without Host) has the registry's shape too; a connection that sends nothing is
 * closed within the same bound. Raw sockets, real server.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, testConfig, type Gateway } from '../support/ingress-harness.js';

const TIMEOUT_MS = 1_000;
let gw: Gateway;

beforeAll(async () => {
  const config = testConfig();
  gw = await startGateway({
    config: { ...config, server: { ...config.server, requestTimeoutMs: TIMEOUT_MS } },
  });
});
afterAll(async () => {
  await gw.close();
});

/** Writes `parts` one every `everyMs`; resolves with what came back and when it closed. */
function trickle(parts: string[], everyMs: number): Promise<{ ms: number; text: string }> {
  const { port } = new URL(gw.url);
  return new Promise((resolve) => {
    const start = performance.now();
    const socket = connect(Number(port), '127.0.0.1');
    let text = '';
    let next = 0;
    const timer = setInterval(() => {
      if (next < parts.length && !socket.destroyed) socket.write(parts[next++] ?? '');
    }, everyMs);
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ ms: performance.now() - start, text });
    });
  });
}

const TIMED_OUT = '{"code":"RequestTimeout","message":"The request was not received in time."}';
const head = 'POST /v1/events/dev HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\n';

describe('server.requestTimeoutMs', () => {
  it.each([
    [
      'headers, one line at a time',
      [
        'POST /v1/events/dev HTTP/1.1\r\n',
        ...Array.from({ length: 40 }, (_, i) => `X-Slow-${i}: 1\r\n`),
      ],
    ],
    [
      'a Content-Length body, one byte at a time',
      [`${head}Content-Length: 60\r\n\r\n`, ...Array.from({ length: 60 }, () => ' ')],
    ],
    [
      'a chunked body, one chunk at a time',
      [
        `${head}Transfer-Encoding: chunked\r\n\r\n`,
        ...Array.from({ length: 60 }, () => '1\r\n \r\n'),
      ],
    ],
  ])('holds for %s', async (_what, parts) => {
    const { ms, text } = await trickle(parts, 100);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text.endsWith(TIMED_OUT)).toBe(true);
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(ms).toBeLessThan(TIMEOUT_MS + 1_000);
  });

  it('closes a connection that sends nothing at all', async () => {
    const { ms } = await trickle([], 100);
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(ms).toBeLessThan(TIMEOUT_MS + 1_000);
  });
});

describe('answers Node would give itself', () => {
  it('keeps the registry shape for a malformed request line and a missing Host', async () => {
    const malformed = await trickle(['NOT HTTP AT ALL\r\n\r\n'], 1);
    expect(malformed.text).toMatch(/^HTTP\/1\.1 400 /);
    expect(malformed.text).toContain('{"code":"BadRequest","message":"The request is malformed."}');
    const noHost = await trickle(['GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n'], 1);
    expect(noHost.text).toMatch(/^HTTP\/1\.1 400 /);
    expect(noHost.text).toContain(
      '{"code":"BadRequest","message":"The request has no Host header."}',
    );
    const http10 = await trickle(['GET /healthz HTTP/1.0\r\n\r\n'], 1);
    expect(http10.text).toMatch(/^HTTP\/1\.1 200 /);
  });
});
