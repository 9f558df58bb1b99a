/**
 * The gateway as its pod runs it: in a memory cgroup with the limit its Deployment sets. Why:
 * Node sizes V8's heap from the cgroup's limit (process.constrainedMemory()), and V8 lets the
 * old generation grow to a multiple of the live heap that falls with that size (up to 4x on a
 * machine with no limit, about 1.5x in a 640Mi pod), so an unconstrained benchmark reports a
 * peak no pod of ours reaches. Where this machine lets us create cgroups (v1 `memory`, or v2
 * with the memory controller), each gateway child is started inside one; elsewhere it runs
 * unconstrained and the report says so.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const MiB = 1024 * 1024;

/** The scale bars' pod: 256Mi. */
const BAR_POD_BYTES = 256 * MiB;

/**
 * The pod a gateway serving `pipelines` Pipelines runs in: up to 1,000, the memory limit
 * docs/operations.md ("Sizing") gives (manifests/deploy sets the 1,000 row); past that, the
 * scale bars' own pod of 256 MiB, whose peak RSS bar is < 256 MB (one gateway at 10,000, and
 * each shard of a sharded run).
 */
export function podLimitBytes(pipelines: number): number {
  if (pipelines <= 100) return 384 * MiB;
  if (pipelines <= 1_000) return 640 * MiB;
  return BAR_POD_BYTES;
}

/** `640Mi`, `1Gi`: a limit as a manifest writes it. */
export function quantity(bytes: number): string {
  return bytes % 1024 ** 3 === 0 ? `${String(bytes / 1024 ** 3)}Gi` : `${String(bytes / MiB)}Mi`;
}

/** A memory cgroup made for one child: the file its pid goes into, and how to remove it. */
export interface PodCgroup {
  procsFile: string;
  remove(): void;
}

const V1 = '/sys/fs/cgroup/memory';
const V2 = '/sys/fs/cgroup';

/**
 * A fresh memory cgroup with `limitBytes`, or undefined where none can be made (no permission,
 * no memory controller): then the child runs unconstrained.
 */
export function podCgroup(name: string, limitBytes: number): PodCgroup | undefined {
  const v2 = existsSync(join(V2, 'cgroup.controllers'));
  const root = v2 ? V2 : V1;
  const dir = join(root, `promotion-gateway-bench-${name}-${String(process.pid)}`);
  try {
    if (v2 && !readFileSync(join(V2, 'cgroup.subtree_control'), 'utf8').includes('memory'))
      return undefined;
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, v2 ? 'memory.max' : 'memory.limit_in_bytes'), String(limitBytes));
  } catch {
    return undefined;
  }
  return {
    procsFile: join(dir, 'cgroup.procs'),
    remove: () => {
      try {
        rmdirSync(dir);
      } catch {
        // Still holds a process that has not been reaped yet: the next run's name differs.
      }
    },
  };
}

/**
 * fork() options that start a child inside `cgroup`: a shell moves itself into the cgroup and
 * then execs Node with `nodeFlags`, so the child's V8 is sized by the limit from its start. If
 * it cannot join, the child still starts, unconstrained: the gateway reports the limit it saw
 * (process.constrainedMemory()), and that is what the tables show.
 */
export function forkInside(
  cgroup: PodCgroup,
  nodeFlags: readonly string[],
): { execPath: string; execArgv: string[] } {
  return {
    execPath: '/bin/sh',
    execArgv: [
      '-c',
      `echo $$ > '${cgroup.procsFile}' 2>/dev/null; exec "$0" "$@"`,
      process.execPath,
      ...nodeFlags,
    ],
  };
}
