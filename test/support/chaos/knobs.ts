/**
 * The chaos run's size and timeline, from the environment: the defaults are the CI run (about
 * 90 s for the whole file on two shared cores); CHAOS_SECONDS, CHAOS_PIPELINES and friends make
 * it longer and bigger. The faults are placed by fractions of the load's duration, so a longer
 * run keeps the same story with more of everything.
 */

/** Everything a run is parameterised by; printed at the start so a run can be repeated. */
export interface Knobs {
  /** How long the load runs (s): CHAOS_SECONDS, default 40. */
  seconds: number;
  /** Pipelines in the fleet: CHAOS_PIPELINES, default 40; every second one gates prod. */
  pipelines: number;
  /** New dev revisions per second across the fleet: CHAOS_RATE, default max(4, pipelines/10). */
  rate: number;
  /** Chance that a revision goes to the application of the one before: CHAOS_BURST, 0.3. */
  burst: number;
  /** Replays of captured event bodies per second: CHAOS_REPLAYS, default 4 x rate. */
  replays: number;
  /** Chance that an event goes to every replica at once (a duplicate): CHAOS_DUPLICATES, 0.3. */
  duplicates: number;
  /** Bound on convergence after the load stops (s): CHAOS_CONVERGE_SECONDS, default 30. */
  convergeSeconds: number;
  /** Seed of the run's choices (which pipeline, which answer): CHAOS_SEED, default random. */
  seed: number;
  /**
   * Scales the clusters' latency: CHAOS_LATENCY, default 1 (remote clusters across regions,
   * 60-300 ms a request; the management API 15-75 ms). 0 turns it off.
   */
  latency: number;
  /** The replicas' log level: CHAOS_LOG_LEVEL, default info. */
  logLevel: string;
  /** Keep the work directory (configs, logs) after the run: CHAOS_KEEP=1. */
  keep: boolean;
}

/** When each fault happens, in ms from the start of the load. */
export interface Timeline {
  /** SIGKILLs of the Lease holder; each is restarted `restartAfterMs` later. */
  kills: number[];
  restartAfterMs: number;
  /** The receiver answers 500 to `errorRate` of the deliveries in [from, to). */
  receiverErrors: { from: number; to: number; rate: number };
  /** The receiver's listener is closed (connection refused) in [from, to). */
  receiverDown: { from: number; to: number };
  /** The management API server is down in [from, to). */
  managementDown: { from: number; to: number };
  /** Each API request waits `x/4` to `1.25x` ms: target clusters, and the management one. */
  latency: { targetMs: number; managementMs: number };
}

function num(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name}=${raw} is not a number`);
  return value;
}

/** The knobs of this run. */
export function readKnobs(): Knobs {
  const pipelines = Math.max(2, Math.round(num('CHAOS_PIPELINES', 40)));
  const rate = num('CHAOS_RATE', Math.max(4, pipelines / 10));
  return {
    seconds: Math.max(20, num('CHAOS_SECONDS', 40)),
    pipelines,
    rate,
    burst: Math.min(1, num('CHAOS_BURST', 0.3)),
    replays: num('CHAOS_REPLAYS', 4 * rate),
    duplicates: Math.min(1, num('CHAOS_DUPLICATES', 0.3)),
    convergeSeconds: num('CHAOS_CONVERGE_SECONDS', 30),
    seed: Math.round(num('CHAOS_SEED', Math.floor(Math.random() * 2 ** 31))),
    latency: num('CHAOS_LATENCY', 1),
    logLevel: process.env.CHAOS_LOG_LEVEL ?? 'info',
    keep: process.env.CHAOS_KEEP === '1',
  };
}

/**
 * The faults of a run of `seconds`: kills at 15% and then every 72.5% (at most every 30 s), none
 * in the last 5 s; the management API down 10 s from 20%, the receiver down 15 s from 45% (apart,
 * so that approvals meet the API's outage while prods wait, and the last kill meets attempts the
 * receiver works on again); the receiver refusing 20% from 10% to 75%. The CI run (40 s): kills
 * at 6 s and 35 s, management down 8-18 s, receiver down 18-33 s. The long run (150 s): kills
 * every 30 s from 22.5 s, management down 30-40 s, receiver down 67.5-82.5 s.
 */
export function timelineOf(seconds: number, latency = 1): Timeline {
  const ms = seconds * 1000;
  const every = Math.min(30_000, 0.725 * ms);
  const kills: number[] = [];
  for (let at = 0.15 * ms; at <= ms - 5_000; at += every) kills.push(Math.round(at));
  const at = (fraction: number) => Math.round(fraction * ms);
  return {
    kills,
    restartAfterMs: 5_000,
    receiverErrors: { from: at(0.1), to: at(0.75), rate: 0.2 },
    receiverDown: { from: at(0.45), to: Math.min(ms, at(0.45) + 15_000) },
    managementDown: { from: at(0.2), to: Math.min(ms, at(0.2) + 10_000) },
    latency: { targetMs: 240 * latency, managementMs: 60 * latency },
  };
}

/** A small seeded PRNG (mulberry32): the run's choices repeat with its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** Compares two dotted versions numerically (1.10.0 > 1.9.0); negative when a < b. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
