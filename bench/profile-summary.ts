/**
 * Where a server's CPU goes, from a V8 CPU profile (`node --cpu-prof bench/dist/run.js` leaves
 * one `.cpuprofile` per process; see docs/benchmarks.md). Samples are bucketed by time and only
 * buckets in which the main thread was busy at least --busy of the time are kept, which selects
 * the server's own load rounds (a server idles while another side is measured) and drops most of
 * start-up. Each kept sample goes to a cost category: the innermost frame of its stack that a
 * specific rule recognises (HMAC, JSON parse, ajv, rate limit, metrics, logging, fastify, the
 * socket write, ...), else the innermost frame a generic rule recognises.
 *
 *   node bench/dist/profile-summary.js <file.cpuprofile> [--rps 8000] [--busy 0.5]
 *
 * --top N also lists the N frames that decided the most time (category, function, file).
 * With --rps (the server's accepted events per second in its rounds of the same run), each
 * category is also shown as µs of the main thread per request: its time over the kept buckets
 * divided by the requests those buckets should hold (their wall time x rps).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { table } from './report.js';

interface CallFrame {
  functionName: string;
  url: string;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  parent?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

type Rule = [category: string, matches: (frame: CallFrame) => boolean];

const url = (part: string) => (f: CallFrame) => f.url.includes(part);
const native = (...names: string[]) => {
  const set = new Set(names);
  return (f: CallFrame) => f.url === '' && set.has(f.functionName);
};
const any =
  (...tests: ((f: CallFrame) => boolean)[]) =>
  (f: CallFrame) =>
    tests.some((t) => t(f));

/** Recognised first, innermost frame first. */
const SPECIFIC: Rule[] = [
  [
    'socket write (writev/write syscall, native)',
    native('writev', 'writeBuffer', 'writeUtf8String', 'writeLatin1String', 'writeAsciiString'),
  ],
  ['request id (randomUUID)', any(native('randomUUID'), url('internal/crypto/random'))],
  ['HMAC (createHmac, update, digest, timingSafeEqual)', any(url('internal/crypto'))],
  ['JSON.parse (+ secure-json-parse)', any(native('parse'), url('secure-json-parse'))],
  ['ajv-formats (date-time)', url('ajv-formats')],
  ['ajv validate (compiled schema)', (f) => /^validate\d*$/.test(f.functionName)],
  ['rate limit (@fastify/rate-limit + store)', url('@fastify/rate-limit')],
  ['metrics (prom-client, src/metrics)', any(url('prom-client'), url('/src/metrics'))],
  ['logging (pino, src/log)', any(url('/pino/'), url('pino-std-serializers'), url('/src/log'))],
  ['authentication (src/auth, outside the HMAC)', url('/src/auth/')],
  ['hint queue (src/hints)', url('/src/hints/')],
  ['ingress route code (src/ingress)', url('/src/ingress/')],
  ['reference route handler', url('/bench/reference-process')],
  ['JSON.stringify / serializer', any(native('stringify'), url('fast-json-stringify'))],
  [
    'fastify core (router, hooks, request/reply)',
    any(
      url('node_modules/fastify/'),
      url('find-my-way'),
      url('avvio'),
      url('@fastify/'),
      url('fastq'),
      url('toad-cache'),
    ),
  ],
  [
    'node:http + net + streams (JS)',
    any(
      url('node:_http'),
      url('node:http'),
      url('node:net'),
      url('internal/streams'),
      url('internal/stream_base_commons'),
      url('internal/http'),
    ),
  ],
  ['garbage collector', (f) => f.functionName === '(garbage collector)'],
  ['(program): native, outside JS (libuv, reads, epoll)', (f) => f.functionName === '(program)'],
];

/** Recognised when no specific rule matched any frame. */
const GENERIC: Rule[] = [
  ['node internals, other (events, nextTick, timers)', url('node:')],
  ['other JS', (f) => f.url !== ''],
  ['other native', () => true],
];

/** The sample's category and the frame that decided it. */
function categorize(stack: readonly CallFrame[]): { category: string; frame: string } {
  for (const rules of [SPECIFIC, GENERIC])
    for (const frame of stack)
      for (const [category, matches] of rules)
        if (matches(frame)) {
          const file = frame.url.slice(frame.url.lastIndexOf('/') + 1);
          return { category, frame: `${frame.functionName || '(anonymous)'} ${file}`.trim() };
        }
  return { category: 'other native', frame: '' };
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      rps: { type: 'string' },
      busy: { type: 'string', default: '0.5' },
      'bucket-ms': { type: 'string', default: '500' },
      top: { type: 'string', default: '0' },
    },
  });
  const file = positionals[0];
  if (file === undefined) throw new Error('usage: profile-summary <file.cpuprofile> [--rps N]');
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const busyShare = Number(values.busy);
  const bucketUs = Number(values['bucket-ms']) * 1000;
  const rps = values.rps === undefined ? undefined : Number(values.rps);

  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const node of profile.nodes)
    for (const child of node.children ?? []) {
      const c = byId.get(child);
      if (c !== undefined) c.parent = node.id;
    }
  const stacks = new Map<number, CallFrame[]>();
  const stackOf = (id: number): CallFrame[] => {
    let stack = stacks.get(id);
    if (stack === undefined) {
      stack = [];
      for (
        let n = byId.get(id);
        n !== undefined;
        n = n.parent === undefined ? undefined : byId.get(n.parent)
      )
        stack.push(n.callFrame);
      stacks.set(id, stack);
    }
    return stack;
  };

  // Per sample: time bucket, duration and whether the main thread was idle.
  const buckets = new Map<number, { busy: number; total: number }>();
  const samples: { bucket: number; us: number; id: number }[] = [];
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i + 1] ?? 0;
    t += profile.timeDeltas[i] ?? 0;
    const id = profile.samples[i] ?? 0;
    const bucket = Math.floor((t - profile.startTime) / bucketUs);
    const idle = byId.get(id)?.callFrame.functionName === '(idle)';
    const b = buckets.get(bucket) ?? { busy: 0, total: 0 };
    b.total += delta;
    if (!idle) b.busy += delta;
    buckets.set(bucket, b);
    if (!idle) samples.push({ bucket, us: delta, id });
  }
  const kept = new Set(
    [...buckets].filter(([, b]) => b.total > 0 && b.busy / b.total >= busyShare).map(([k]) => k),
  );

  const totals = new Map<string, number>();
  const frames = new Map<string, number>();
  let keptUs = 0;
  let keptWallUs = 0;
  for (const k of kept) keptWallUs += buckets.get(k)?.total ?? 0;
  const requests = rps === undefined ? undefined : (keptWallUs / 1e6) * rps;
  for (const s of samples) {
    if (!kept.has(s.bucket)) continue;
    const { category, frame } = categorize(stackOf(s.id));
    totals.set(category, (totals.get(category) ?? 0) + s.us);
    const key = `${category}\t${frame}`;
    frames.set(key, (frames.get(key) ?? 0) + s.us);
    keptUs += s.us;
  }
  const rows = [...totals]
    .sort((a, b) => b[1] - a[1])
    .map(([category, us]) => [
      category,
      `${((100 * us) / keptUs).toFixed(1)}%`,
      requests === undefined ? '' : (us / requests).toFixed(1),
    ]);
  process.stdout.write(
    `${file}: ${kept.size} of ${buckets.size} buckets of ${bucketUs / 1000} ms kept ` +
      `(main thread busy >= ${Math.round(busyShare * 100)}%), ${(keptUs / 1e6).toFixed(1)} s busy ` +
      `of ${(keptWallUs / 1e6).toFixed(1)} s` +
      (requests === undefined ? '\n' : `, ${(keptUs / requests).toFixed(1)} µs/request busy\n`),
  );
  process.stdout.write(`${table(['category', 'share of busy', 'µs/request'], rows)}\n`);
  const top = Number(values.top);
  if (top > 0) {
    const frameRows = [...frames]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, us]) => [
        ...key.split('\t'),
        `${((100 * us) / keptUs).toFixed(1)}%`,
        requests === undefined ? '' : (us / requests).toFixed(1),
      ]);
    process.stdout.write(
      `\n${table(['category', 'deciding frame', 'share of busy', 'µs/request'], frameRows)}\n`,
    );
  }
}

main();
