/**
 * A fixed-resolution latency histogram: 10 µs buckets up to 1 s (slower samples land in the
 * last bucket, the exact maximum is kept). Cheap to record in the load client's hot loop and
 * sent to the parent as sparse [bucket, count] pairs, where rounds are merged.
 */

/** Bucket width in microseconds. */
export const BUCKET_US = 10;
/** Number of buckets: 10 µs x 100 000 = 1 s. */
const BUCKETS = 100_000;

/** The wire form of a histogram (IPC-safe: plain JSON). */
export interface HistogramData {
  /** Non-empty buckets as [index, count]. */
  buckets: [number, number][];
  count: number;
  /** Largest sample in milliseconds. */
  maxMs: number;
  /** Sum of samples in milliseconds (for the mean). */
  sumMs: number;
}

/** Summary of a histogram, in milliseconds. */
export interface LatencySummary {
  count: number;
  meanMs: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
}

/** Records latency samples; merge and summarise with the functions below. */
export class Histogram {
  private readonly counts = new Uint32Array(BUCKETS);
  private total = 0;
  private max = 0;
  private sum = 0;

  /** Records one sample given in nanoseconds (process.hrtime.bigint differences). */
  recordNs(ns: number): void {
    const ms = ns / 1e6;
    const bucket = Math.min(BUCKETS - 1, Math.floor(ns / (BUCKET_US * 1000)));
    this.counts[bucket] = (this.counts[bucket] ?? 0) + 1;
    this.total++;
    this.sum += ms;
    if (ms > this.max) this.max = ms;
  }

  /** The sparse, serialisable form. */
  toData(): HistogramData {
    const buckets: [number, number][] = [];
    for (let i = 0; i < BUCKETS; i++) {
      const n = this.counts[i] ?? 0;
      if (n > 0) buckets.push([i, n]);
    }
    return { buckets, count: this.total, maxMs: this.max, sumMs: this.sum };
  }
}

/** Adds histograms together (rounds of one side). */
export function mergeHistograms(parts: readonly HistogramData[]): HistogramData {
  const merged = new Map<number, number>();
  let count = 0;
  let maxMs = 0;
  let sumMs = 0;
  for (const part of parts) {
    for (const [bucket, n] of part.buckets) merged.set(bucket, (merged.get(bucket) ?? 0) + n);
    count += part.count;
    sumMs += part.sumMs;
    maxMs = Math.max(maxMs, part.maxMs);
  }
  const buckets = [...merged.entries()].sort((a, b) => a[0] - b[0]);
  return { buckets, count, maxMs, sumMs };
}

/** Percentile (0-100) in milliseconds: the upper edge of the bucket holding that rank. */
export function percentile(data: HistogramData, p: number): number {
  if (data.count === 0) return 0;
  const rank = Math.ceil((p / 100) * data.count);
  let seen = 0;
  for (const [bucket, n] of data.buckets) {
    seen += n;
    if (seen >= rank) return Math.min(data.maxMs, ((bucket + 1) * BUCKET_US) / 1000);
  }
  return data.maxMs;
}

/** The usual figures of a histogram. */
export function summarize(data: HistogramData): LatencySummary {
  return {
    count: data.count,
    meanMs: data.count === 0 ? 0 : data.sumMs / data.count,
    p50Ms: percentile(data, 50),
    p90Ms: percentile(data, 90),
    p99Ms: percentile(data, 99),
    p999Ms: percentile(data, 99.9),
    maxMs: data.maxMs,
  };
}
