/**
 * Opt-in diagnostics of the scale benchmark's gateway process, for finding where its memory
 * goes; off unless the environment asks (see docs/benchmarks.md):
 * - SCALE_MEM_TRACE=<file>: one line per 500 ms and per step (RSS, heap total and used,
 *   external, array buffers, in MiB), appended to the file;
 * - SCALE_HEAP_SNAPSHOT=<file>: a heap snapshot after a full GC at each sample the benchmark
 *   takes (the last one, at the end of the run, is what stays in the file).
 */
import { appendFileSync } from 'node:fs';
import { writeHeapSnapshot } from 'node:v8';

const MIB = 1024 * 1024;

/** The memory trace and heap snapshots the environment asked for, or no-ops. */
export class ScaleDiagnostics {
  private readonly started = Date.now();

  constructor(
    private readonly tracePath = process.env.SCALE_MEM_TRACE,
    private readonly snapshotPath = process.env.SCALE_HEAP_SNAPSHOT,
  ) {
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
      `hu=${mib(m.heapUsed)} ext=${mib(m.external)} ab=${mib(m.arrayBuffers)} ${label}`;
    appendFileSync(this.tracePath, `${line.trimEnd()}\n`);
  }

  /** Writes a heap snapshot after a full GC (the process runs with --expose-gc). */
  snapshot(): void {
    if (this.snapshotPath === undefined) return;
    (globalThis as { gc?: () => void }).gc?.();
    writeHeapSnapshot(this.snapshotPath);
  }
}

/** Node flags for the gateway process from SCALE_GATEWAY_FLAGS, after the image's own. */
export function extraGatewayFlags(value = process.env.SCALE_GATEWAY_FLAGS): string[] {
  return (value ?? '').split(' ').filter((flag) => flag !== '');
}
