/**
 * Opt-in diagnostics of the scale benchmark's gateway process, for finding where its memory
 * goes; off unless the environment asks (see docs/benchmarks.md):
 * - SCALE_MEM_TRACE=<file>: one line per 500 ms and per step (RSS, heap total and used,
 *   external, array buffers, then V8's memory by space: what each space has committed, what
 *   V8 has malloc'd outside them, and its peak; in MiB), appended to the file;
 * - SCALE_HEAP_SNAPSHOT=<file>: a heap snapshot after a full GC at each sample the benchmark
 *   takes (the last one, at the end of the run, is what stays in the file);
 * - SCALE_HEAP_SAMPLING=<file>: a sampling heap profile from the start, counting the objects a
 *   full GC collected too (what reached the old space and died there: the peak's makers),
 *   written at each sample (open it in Chrome's DevTools, Memory tab);
 * - SCALE_SHARDS_ONLY=<k>: in a sharded run, start shard k's gateway only (the fleet is the
 *   same): one shard's memory without nine others competing for the CPU.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { getHeapSpaceStatistics, getHeapStatistics, writeHeapSnapshot } from 'node:v8';

const MIB = 1024 * 1024;

/** The memory trace and heap snapshots the environment asked for, or no-ops. */
export class ScaleDiagnostics {
  private readonly started = Date.now();

  constructor(
    private readonly tracePath = process.env.SCALE_MEM_TRACE,
    private readonly snapshotPath = process.env.SCALE_HEAP_SNAPSHOT,
    private readonly samplingPath = process.env.SCALE_HEAP_SAMPLING,
  ) {
    if (samplingPath !== undefined) this.startSampling();
    if (tracePath === undefined) return;
    setInterval(() => {
      this.mark('');
    }, 500).unref();
  }

  /** Appends one trace line, labelled with what just happened. */
  mark(label: string): void {
    if (this.tracePath === undefined) return;
    const m = process.memoryUsage();
    const mib = (n: number) => (n / MIB).toFixed(0);
    const line =
      `${String(Date.now() - this.started)} rss=${mib(m.rss)} ht=${mib(m.heapTotal)} ` +
      `hu=${mib(m.heapUsed)} ext=${mib(m.external)} ab=${mib(m.arrayBuffers)} ` +
      `${v8Spaces(mib)} ${label}`;
    appendFileSync(this.tracePath, `${line.trimEnd()}\n`);
  }

  /** Writes a heap snapshot after a full GC (the process runs with --expose-gc). */
  snapshot(): void {
    this.writeSampling();
    if (this.snapshotPath === undefined) return;
    (globalThis as { gc?: () => void }).gc?.();
    writeHeapSnapshot(this.snapshotPath);
  }
  private session: Session | undefined;

  private startSampling(): void {
    this.session = new Session();
    this.session.connect();
    this.session.post('HeapProfiler.startSampling', {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
    });
  }

  private writeSampling(): void {
    const path = this.samplingPath;
    if (path === undefined) return;
    this.session?.post('HeapProfiler.getSamplingProfile', (err, result) => {
      if (err === null) writeFileSync(path, JSON.stringify(result.profile));
    });
  }
}

/** V8's committed memory by space (short names) and its malloc'd memory, current and peak. */
function v8Spaces(mib: (n: number) => string): string {
  const spaces = getHeapSpaceStatistics()
    .filter((space) => space.space_size > 0)
    .map((space) => `${space.space_name.replace(/_space$/, '')}=${mib(space.space_size)}`);
  const heap = getHeapStatistics();
  return `[${spaces.join(' ')} malloced=${mib(heap.malloced_memory)} peak-malloced=${mib(heap.peak_malloced_memory)}]`;
}

/** Node flags for the gateway process from SCALE_GATEWAY_FLAGS, after the image's own. */
export function extraGatewayFlags(value = process.env.SCALE_GATEWAY_FLAGS): string[] {
  return (value ?? '').split(' ').filter((flag) => flag !== '');
}

/** SCALE_SHARDS_ONLY: the one shard a sharded run starts, or undefined for all of them. */
export function onlyShard(value = process.env.SCALE_SHARDS_ONLY): number | undefined {
  return value === undefined || value === '' ? undefined : Number(value);
}
