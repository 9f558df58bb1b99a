/**
 * CPU affinity of the benchmark's processes (Linux, util-linux `taskset`): the scale bench's
 * one-core pace pins the gateway to CPU 0; part (g) gives the gateway a core of its own while
 * the load client and the rest share the other, so the two sides of a comparison are not also
 * a contest for the same core. `taskset -a` applies to every thread of the process, and threads
 * it starts later inherit the mask.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** Sets the CPUs of process `pid` and all its threads to `cpus` ("0", "1", "0-3"). Throws when taskset is missing or refuses. */
export function pinProcess(pid: number, cpus: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
}

/** Pins process `pid` and all its threads to CPU 0. */
export function pinToOneCore(pid: number): void {
  pinProcess(pid, '0');
}

/**
 * Gives `measured` the last CPU alone and puts `others` on the rest; answers a function that
 * lets every one of them run anywhere again, or undefined (nothing changed) on a single-CPU
 * machine or where taskset is missing or refuses.
 */
export function separateCores(
  measured: number,
  others: readonly number[],
): (() => void) | undefined {
  const count = availableParallelism();
  if (count < 2) return undefined;
  const last = String(count - 1);
  const rest = count === 2 ? '0' : `0-${String(count - 2)}`;
  const all = `0-${last}`;
  try {
    pinProcess(measured, last);
    for (const pid of others) pinProcess(pid, rest);
  } catch {
    for (const pid of [measured, ...others]) tryPin(pid, all);
    return undefined;
  }
  return () => {
    for (const pid of [measured, ...others]) tryPin(pid, all);
  };
}

function tryPin(pid: number, cpus: string): void {
  try {
    pinProcess(pid, cpus);
  } catch {
    // The process may have ended; nothing to undo then.
  }
}

/**
 * Every distinct `Cpus_allowed_list` of the process's threads from /proc (Linux), with how
 * many threads have it ("0 (11 threads)"), or '-' when it cannot be read.
 */
export function allowedCpus(pid: number): string {
  try {
    const dir = `/proc/${String(pid)}/task`;
    const counts = new Map<string, number>();
    for (const task of readdirSync(dir)) {
      const status = readFileSync(`${dir}/${task}/status`, 'utf8');
      const cpus = /^Cpus_allowed_list:\s*(\S+)/m.exec(status)?.[1] ?? '?';
      counts.set(cpus, (counts.get(cpus) ?? 0) + 1);
    }
    return [...counts].map(([cpus, n]) => `${cpus} (${String(n)} threads)`).join(', ');
  } catch {
    return '-';
  }
}
