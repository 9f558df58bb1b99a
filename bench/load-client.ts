/**
 * The load generator, run as a child process (see load.ts) so it does not share the server's
 * event loop. It speaks HTTP/1.1 over raw keep-alive sockets with one pre-serialised request,
 * which costs far less per request than node:http's client: on a 2-core machine the client
 * must be cheap, or both servers measure the client instead of themselves.
 */
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { Histogram } from './histogram.js';
import type { FromClient, LoadResult, LoadSpec, ToClient } from './load-types.js';

const HEADER_END = Buffer.from('\r\n\r\n');
const LAST_CHUNK = Buffer.from('\r\n0\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i;
const CHUNKED = /\r\ntransfer-encoding:[ \t]*chunked/i;
const CLOSE = /\r\nconnection:[ \t]*close/i;
const RECONNECT_DELAY_MS = 10;

/** The request bytes sent on every iteration. */
export function serializeRequest(spec: LoadSpec): Buffer {
  const body = Buffer.from(spec.body, 'utf8');
  const lines = [`${spec.method} ${spec.path} HTTP/1.1`, `Host: ${spec.host}:${spec.port}`];
  for (const [name, value] of Object.entries(spec.headers)) lines.push(`${name}: ${value}`);
  if (spec.method === 'POST') lines.push(`Content-Length: ${body.length}`);
  lines.push('Connection: keep-alive', '', '');
  return Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), body]);
}

/** One parsed response at the head of `buf`: its status and length, or undefined if partial. */
function parseResponse(
  buf: Buffer,
): { status: number; length: number; close: boolean } | undefined {
  const headerEnd = buf.indexOf(HEADER_END);
  if (headerEnd < 0) return undefined;
  const head = buf.toString('latin1', 0, headerEnd);
  const status = Number(head.slice(9, 12));
  const close = CLOSE.test(head);
  const bodyStart = headerEnd + HEADER_END.length;
  const length = CONTENT_LENGTH.exec(head)?.[1];
  if (length !== undefined) {
    const end = bodyStart + Number(length);
    return buf.length >= end ? { status, length: end, close } : undefined;
  }
  if (CHUNKED.test(head)) {
    const last = buf.indexOf(LAST_CHUNK, headerEnd);
    return last < 0 ? undefined : { status, length: last + LAST_CHUNK.length, close };
  }
  return { status, length: bodyStart, close };
}

/** Runs one load spec to completion. */
export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const request = serializeRequest(spec);
  const histogram = new Histogram();
  const statuses: Record<string, number> = {};
  const sockets = new Set<Socket>();
  let issued = 0;
  let completed = 0;
  let errors = 0;
  let opened = 0;
  let inFlight = 0;
  let finished = false;
  const cpuAtStart = process.cpuUsage();
  const switchesAtStart = process.resourceUsage().voluntaryContextSwitches;
  const started = process.hrtime.bigint();
  let lastDone = started;
  const deadline =
    spec.durationMs === undefined ? undefined : started + BigInt(spec.durationMs) * 1_000_000n;

  const canIssue = (): boolean =>
    !finished &&
    (spec.requests === undefined || issued < spec.requests) &&
    (deadline === undefined || process.hrtime.bigint() < deadline);

  return new Promise<LoadResult>((resolve) => {
    const finish = (timedOut: boolean): void => {
      if (finished) return;
      finished = true;
      clearTimeout(hardStop);
      for (const socket of sockets) socket.destroy();
      const elapsedMs = Number(lastDone - started) / 1e6;
      const cpu = process.cpuUsage(cpuAtStart);
      resolve({
        completed,
        errors,
        statuses,
        elapsedMs,
        rps: elapsedMs > 0 ? (completed * 1000) / elapsedMs : 0,
        latency: histogram.toData(),
        timedOut,
        connectionsOpened: opened,
        clientCpuMs: (cpu.user + cpu.system) / 1000,
        clientVoluntarySwitches: process.resourceUsage().voluntaryContextSwitches - switchesAtStart,
        clientRssBytes: process.memoryUsage().rss,
      });
    };
    const hardStop = setTimeout(() => {
      finish(true);
    }, spec.timeoutMs);
    const maybeFinish = (): void => {
      if (inFlight === 0 && !canIssue()) finish(false);
    };

    const open = (): void => {
      if (!canIssue()) {
        maybeFinish();
        return;
      }
      opened++;
      const socket = connect({ host: spec.host, port: spec.port, noDelay: true });
      sockets.add(socket);
      let buf: Buffer | undefined;
      let sentAt = 0n;
      let waiting = false;
      const send = (): void => {
        if (!canIssue()) {
          socket.end();
          maybeFinish();
          return;
        }
        issued++;
        inFlight++;
        waiting = true;
        sentAt = process.hrtime.bigint();
        socket.write(request);
      };
      socket.on('connect', send);
      socket.on('data', (chunk: Buffer) => {
        buf = buf === undefined || buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
        for (;;) {
          const response = waiting ? parseResponse(buf) : undefined;
          if (response === undefined) return;
          const now = process.hrtime.bigint();
          histogram.recordNs(Number(now - sentAt));
          lastDone = now;
          completed++;
          inFlight--;
          waiting = false;
          statuses[response.status] = (statuses[response.status] ?? 0) + 1;
          buf = buf.subarray(response.length);
          if (response.close) {
            socket.destroy();
            return;
          }
          send();
        }
      });
      socket.on('error', () => {
        // 'close' follows and does the accounting.
      });
      socket.on('close', () => {
        sockets.delete(socket);
        if (waiting) {
          waiting = false;
          inFlight--;
          errors++;
        }
        if (finished) return;
        if (canIssue()) setTimeout(open, RECONNECT_DELAY_MS);
        else maybeFinish();
      });
    };
    for (let i = 0; i < spec.connections; i++) open();
  });
}

function reply(message: FromClient): void {
  process.send?.(message);
}

// Entry point when forked by load.ts: run specs as they arrive, one at a time.
if (process.send !== undefined) {
  process.on('message', (message: ToClient) => {
    runLoad(message.spec).then(
      (result) => {
        reply({ type: 'result', id: message.id, result });
      },
      (err: unknown) => {
        reply({ type: 'error', id: message.id, message: String(err) });
      },
    );
  });
  process.on('disconnect', () => {
    process.exit(0);
  });
  reply({ type: 'ready' });
}
