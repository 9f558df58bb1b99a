/**
 * CPU time of another process (all its threads: JS, GC helpers, libuv pool), read from
 * /proc/<pid>/stat, so the benchmark can report what each server spent per request without
 * asking it, how often its main thread blocked, and its peak resident memory (both from
 * /proc/<pid>/status). Linux only; elsewhere, or if the process is gone, it reads undefined.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    } catch {
      ticksPerSecond = 100;
    }
    if (!Number.isFinite(ticksPerSecond) || ticksPerSecond <= 0) ticksPerSecond = 100;
  }
  return ticksPerSecond;
}

/** CPU time a process has used so far, in ms, and how often its main thread blocked. */
export interface CpuTimes {
  userMs: number;
  systemMs: number;
  /** Voluntary context switches of the main thread (its event loop waiting for I/O). */
  voluntarySwitches: number;
}

const VOLUNTARY = /^voluntary_ctxt_switches:\s*(\d+)/m;

/** The user and system CPU time `pid` has used so far; undefined when it cannot be read. */
export function processCpu(pid: number | undefined): CpuTimes | undefined {
  if (pid === undefined || process.platform !== 'linux') return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at field 3 (state).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
    const ms = 1000 / clockTicks();
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const voluntarySwitches = Number(VOLUNTARY.exec(status)?.[1] ?? Number.NaN);
    return { userMs: utime * ms, systemMs: stime * ms, voluntarySwitches };
  } catch {
    return undefined;
  }
}

const PEAK_RSS = /^VmHWM:\s*(\d+)\s*kB/m;

/** The largest resident set size `pid` has had so far, in bytes; undefined when unreadable. */
export function processPeakRss(pid: number | undefined): number | undefined {
  if (pid === undefined || process.platform !== 'linux') return undefined;
  try {
    const kib = Number(PEAK_RSS.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return Number.isFinite(kib) ? kib * 1024 : undefined;
  } catch {
    return undefined;
  }
}
