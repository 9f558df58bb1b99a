/**
 * Part (g), the web view (docs/ui.md):
 *   - the fleet page at N Pipelines (1,000): its server render time (every row rendered anew,
 *     and the page as served from the rendered rows, gzip included) and its bytes, raw and gzip;
 *   - one update: from the change of a Pipeline (what the Pipeline watch reports) to its frame
 *     written on an open live stream, server side (the hub's own clock, the coalescing pause
 *     included) and as the client received it;
 *   - ingress throughput (signed Flux events accepted per second) of the gateway process with
 *     50 open live streams against none, in alternating rounds; the bar: at most 5% lower.
 * The first two run in this process on a synthetic fleet (ui-fleet.ts); the third against the
 * gateway process of part (a), which serves the view as the demo does.
 */
import { request, type IncomingMessage } from 'node:http';
import { createLogger, defaultConfig, buildUi, type FlushReport } from 'promotion-gateway';
import type { LoadClient } from './load.js';
import { separateCores } from './cpu-affinity.js';
import { getText } from './http-text.js';
import { processCpu } from './proc-cpu.js';
import type { GatewayUnderTest } from './servers.js';
import { median, specFor, type ThroughputOptions } from './throughput.js';
import { SyntheticFleet } from './ui-fleet.js';

/** The web view's figures. */
export interface ViewResult {
  pipelines: number;
  render: {
    /** Every row rendered anew (ms, median of 5). */
    rowsMs: number;
    /** GET / served from the rendered rows, gzip included, to the last byte (ms). */
    pageMedianMs: number;
    pageP90Ms: number;
    bytes: number;
    gzipBytes: number;
  };
  update: {
    samples: number;
    coalesceMs: number;
    /** From the change to the frame written (ms), the coalescing pause included. */
    serverMedianMs: number;
    serverP90Ms: number;
    /** Of which rendering and writing (ms). */
    renderMedianMs: number;
    /** From the change to the frame read by the client (ms). */
    clientMedianMs: number;
  };
  viewers: {
    count: number;
    /** Accepted events per second, per round, without and with the open streams. */
    none: number[];
    open: number[];
    ratios: number[];
    /** The bar's figure: the median of the per-round ratios. */
    medianRatio: number;
    /** Every round's accepted events with the streams over those without. */
    totalRatio: number;
    /** Whether the gateway had a CPU of its own (separateCores) during the rounds. */
    pinned: boolean;
    /** The gateway's CPU per accepted event (µs, median of the rounds), without and with them. */
    cpuUsPerEvent: { none: number; open: number };
    /** Frames the viewers received during their rounds (heartbeats excluded). */
    frames: number;
  };
}

/** The bar: with 50 open streams the ingress keeps at least this share of its throughput. */
export const MIN_VIEWERS_RATIO = 0.95;
const VIEWERS = 50;
const COALESCE_MS = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}

/** GET `path` from 127.0.0.1:`port`: status, body bytes and time to the last byte (ms). */
function get(port: number, path: string, gzip: boolean): Promise<{ bytes: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, headers: gzip ? { 'accept-encoding': 'gzip' } : {} },
      (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => {
          resolve({ bytes, ms: performance.now() - started });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** The change number the fleet page of 127.0.0.1:`port` was rendered at. */
async function pageSince(port: number): Promise<string> {
  const text = await getText(`http://127.0.0.1:${String(port)}/`);
  return encodeURIComponent(/data-since="([^"]+)"/.exec(text)?.[1] ?? '');
}

/** An open live stream: counts the frames it reads and tells `onData` of each chunk. */
function openStream(port: number, path: string, onData: (text: string) => void = () => undefined) {
  return new Promise<{ close: () => void; frames: () => number }>((resolve, reject) => {
    let frames = 0;
    const req = request({ host: '127.0.0.1', port, path }, (res: IncomingMessage) => {
      if (res.statusCode !== 200) reject(new Error(`${path}: HTTP ${String(res.statusCode)}`));
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        frames += text.split('event: rows').length - 1;
        onData(text);
      });
      resolve({ close: () => req.destroy(), frames: () => frames });
    });
    req.on('error', () => undefined);
    req.end();
  });
}

/** The render and update figures at `count` Pipelines, in this process. */
export async function measureViewInProcess(count: number, samples: number) {
  const source = new SyntheticFleet(count);
  const reports: FlushReport[] = [];
  const config = defaultConfig({ ui: { port: 0, anonymous: true } });
  const ui = config.ui;
  if (ui === undefined) throw new Error('no ui configuration');
  const scheduler = {
    now: () => Date.now(),
    monotonic: () => performance.now(),
    setTimer: (ms: number, fn: () => void) => {
      const timer = setTimeout(fn, ms);
      return () => {
        clearTimeout(timer);
      };
    },
  };
  const built = await buildUi({
    config: { ...config, ui },
    logger: createLogger('silent'),
    source,
    scheduler,
    live: { coalesceMs: COALESCE_MS, observe: (r) => reports.push(r) },
  });
  const port = Number(new URL(await built.app.listen({ host: '127.0.0.1', port: 0 })).port);
  try {
    const rowTimes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      built.hub.rows.refresh([], true);
      rowTimes.push(performance.now() - started);
    }
    const raw = await get(port, '/', false);
    const pages: number[] = [];
    let gzipBytes = 0;
    for (let i = 0; i < 30; i++) {
      const page = await get(port, '/', true);
      pages.push(page.ms);
      gzipBytes = page.bytes;
    }
    const render = {
      rowsMs: median(rowTimes),
      pageMedianMs: median(pages),
      pageP90Ms: percentile(pages, 0.9),
      bytes: raw.bytes,
      gzipBytes,
    };
    return { render, update: await measureUpdates(port, source, reports, samples) };
  } finally {
    await built.app.close();
  }
}

async function measureUpdates(
  port: number,
  source: SyntheticFleet,
  reports: FlushReport[],
  samples: number,
): Promise<ViewResult['update']> {
  let waiting: { text: string; resolve: () => void } | undefined;
  const stream = await openStream(port, '/live', (text) => {
    if (waiting !== undefined && text.includes(waiting.text)) waiting.resolve();
  });
  const client: number[] = [];
  await sleep(200);
  reports.length = 0;
  for (let n = 0; n < samples; n++) {
    const revision = `9.${String(n)}.0-bench`;
    const arrived = new Promise<void>((resolve) => {
      waiting = { text: revision, resolve };
    });
    const started = performance.now();
    source.change((n * 37) % 1000, revision);
    await arrived;
    client.push(performance.now() - started);
    await sleep(COALESCE_MS + 20);
  }
  stream.close();
  const server = reports.map((r) => r.sinceChangeMs);
  return {
    samples,
    coalesceMs: COALESCE_MS,
    serverMedianMs: median(server),
    serverP90Ms: percentile(server, 0.9),
    renderMedianMs: median(reports.map((r) => r.renderMs)),
    clientMedianMs: median(client),
  };
}

/**
 * Ingress throughput of the gateway process with VIEWERS open live streams against none, in
 * alternating rounds (the order swapped every round), each ratio per round. The gateway has a
 * CPU of its own meanwhile (separateCores) where the machine has two or more.
 */
export async function measureViewers(
  client: LoadClient,
  gateway: GatewayUnderTest,
  options: ThroughputOptions,
): Promise<ViewResult['viewers']> {
  const others = [client.pid, gateway.fleet.pid, process.pid].filter((p) => p !== undefined);
  const restore = gateway.pid === undefined ? undefined : separateCores(gateway.pid, others);
  try {
    return { ...(await viewerRounds(client, gateway, options)), pinned: restore !== undefined };
  } finally {
    restore?.();
  }
}

async function viewerRounds(
  client: LoadClient,
  gateway: GatewayUnderTest,
  options: ThroughputOptions,
): Promise<Omit<ViewResult['viewers'], 'pinned'>> {
  const uiPort = gateway.uiPort;
  if (uiPort === undefined) throw new Error('the gateway under test serves no view');
  const spec = () =>
    specFor(gateway, gateway.referenced, options.connections, { durationMs: options.roundMs });
  const sides = { none: [] as number[], open: [] as number[] };
  const cpu = { none: [] as number[], open: [] as number[] };
  let frames = 0;
  const round = async (side: 'none' | 'open') => {
    // As a browser does: the page first, then its stream from the page's change number.
    const page = side === 'open' ? await pageSince(uiPort) : '';
    const streams =
      side === 'open'
        ? await Promise.all(
            Array.from({ length: VIEWERS }, () => openStream(uiPort, `/live?since=${page}`)),
          )
        : [];
    const before = processCpu(gateway.pid);
    const result = await client.run(spec());
    const after = processCpu(gateway.pid);
    await gateway.idle();
    frames += streams.reduce((sum, s) => sum + s.frames(), 0);
    for (const s of streams) s.close();
    await sleep(200);
    const accepted = result.statuses['202'] ?? 0;
    sides[side].push(result.elapsedMs > 0 ? (accepted * 1000) / result.elapsedMs : 0);
    if (before !== undefined && after !== undefined && accepted > 0) {
      const ms = after.userMs + after.systemMs - before.userMs - before.systemMs;
      cpu[side].push((ms * 1000) / accepted);
    }
  };
  await client.run({ ...spec(), durationMs: options.warmupMs });
  await gateway.idle();
  for (let i = 0; i < options.rounds; i++) {
    // The order swaps every round, so a drift of the machine's load weighs on both sides.
    const order: ('none' | 'open')[] = i % 2 === 0 ? ['none', 'open'] : ['open', 'none'];
    for (const side of order) await round(side);
  }
  const { none, open } = sides;
  const ratios = open.map((o, i) => ((none[i] ?? 0) > 0 ? o / (none[i] ?? 1) : 0));
  const total = (rates: number[]) => rates.reduce((sum, rate) => sum + rate, 0);
  return {
    ...{ count: VIEWERS, none, open, ratios, medianRatio: median(ratios), frames },
    totalRatio: total(none) > 0 ? total(open) / total(none) : 0,
    cpuUsPerEvent: { none: median(cpu.none), open: median(cpu.open) },
  };
}

/**
 * Alternating rounds for the viewers' figure: many short ones, because the machine's pace drifts
 * over seconds (a 1 s round of the same side varies by 10-15%). The quick mode's 24 pairs still
 * move about ±5% from run to run; the full mode's 40 pairs of 2 s decide (docs/ui.md, "Benchmark").
 */
const VIEWER_ROUNDS = {
  quick: { rounds: 24, roundMs: 1_000 },
  full: { rounds: 40, roundMs: 2_000 },
} as const;

/** Part (g): the view at 1,000 Pipelines in this process, then viewers on the gateway process. */
export async function measureView(
  client: LoadClient,
  gateway: GatewayUnderTest,
  options: ThroughputOptions,
  quick: boolean,
): Promise<ViewResult> {
  const pipelines = 1_000;
  const { render, update } = await measureViewInProcess(pipelines, quick ? 10 : 30);
  const viewers = await measureViewers(client, gateway, {
    ...options,
    ...VIEWER_ROUNDS[quick ? 'quick' : 'full'],
  });
  return { pipelines, render, update, viewers };
}
