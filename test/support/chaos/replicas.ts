/**
 * The gateway replicas of the chaos run as real child processes running `serve` with a config
 * file: started, SIGKILLed, restarted under a new identity (`chaos-a-0`, then `chaos-a-1`, ...),
 * each one's stdout and stderr kept in a file of its own. A replica that exits without being
 * killed is recorded and started again, so the run never waits on a process that is gone.
 *
 * Traffic reaches them as through the Kubernetes Service of manifests/deploy: a replica is in
 * the pool once its readiness probe (`/readyz` every 5 s) passed, and leaves it when its process
 * is gone or after two failed probes in a row (the Deployment's periodSeconds 5,
 * failureThreshold 2): a replica still loading its Pipelines gets no requests, and one that
 * loses the management API keeps getting them for 5 to 10 s.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Journal } from './journal.js';
import { writeReplicaConfig, type SharedSettings } from './replica-config.js';

/** One replica process. `url` is set once it listens; it is live while not killed or exited. */
export interface Replica {
  slot: string;
  identity: string;
  url: string | undefined;
  child: ChildProcess;
  killed: boolean;
  exited: boolean;
  logFile: string;
  /** In the Service's pool: its probe passed, and has not failed twice in a row since. */
  inPool: boolean;
  failedProbes: number;
}

/** What starting a replica needs. */
export interface ReplicaOptions {
  bundle: string;
  dir: string;
  kubeconfig: string;
  shared: SharedSettings;
  journal: Journal;
}

const LISTENING = /"address":"(http:\/\/[^"]+)"/;
/** The readiness probe of manifests/deploy/gateway/deployment.yaml. */
const PROBE = { periodMs: 5_000, failureThreshold: 2 };

/** The replicas of the run, by slot (`a`, `b`), every generation kept for the logs. */
export class Replicas {
  private readonly all: Replica[] = [];
  private readonly generations = new Map<string, number>();
  private stopping = false;
  // Children must not outlive the test process, even when it ends without afterAll.
  private readonly onExit = () => {
    for (const r of this.all) if (!r.exited) r.child.kill('SIGKILL');
  };

  constructor(private readonly options: ReplicaOptions) {
    process.once('exit', this.onExit);
  }

  /** Starts the next generation of `slot`; resolves with it once it listens (or has exited). */
  start(slot: string): Promise<Replica> {
    const generation = this.generations.get(slot) ?? 0;
    this.generations.set(slot, generation + 1);
    const identity = `chaos-${slot}-${generation}`;
    const { dir, shared, bundle, kubeconfig } = this.options;
    const config = writeReplicaConfig(dir, shared, identity);
    const logFile = join(dir, `${identity}.log`);
    const env = { ...process.env };
    delete env.NODE_OPTIONS; // the test runner's loader options are not the gateway's
    const child = spawn(
      process.execPath,
      ['--enable-source-maps', bundle, 'serve', '--config', config, '--kubeconfig', kubeconfig],
      { stdio: ['ignore', 'pipe', 'pipe'], env },
    );
    const replica: Replica = {
      slot,
      identity,
      url: undefined,
      child,
      killed: false,
      exited: false,
      logFile,
      inPool: false,
      failedProbes: 0,
    };
    this.all.push(replica);
    return this.follow(replica);
  }

  private follow(replica: Replica): Promise<Replica> {
    const log = createWriteStream(replica.logFile);
    // The end of the previous chunk: the listening line may be split between two chunks.
    let carry = '';
    return new Promise((resolve) => {
      replica.child.stdout?.on('data', (chunk: Buffer) => {
        log.write(chunk);
        if (replica.url !== undefined) return;
        const text = carry + chunk.toString('utf8');
        carry = text.slice(-1_024);
        const url = LISTENING.exec(text)?.[1];
        if (url === undefined) return;
        replica.url = url;
        resolve(replica);
      });
      replica.child.stderr?.on('data', (chunk: Buffer) => log.write(chunk));
      replica.child.once('exit', (code, signal) => {
        replica.exited = true;
        log.end();
        resolve(replica);
        this.exited(replica, code, signal);
      });
    });
  }

  private exited(replica: Replica, code: number | null, signal: string | null): void {
    if (replica.killed || this.stopping) return;
    const { journal } = this.options;
    journal.unexpectedExits.push(
      `${replica.identity} exited by itself (code ${String(code)}, signal ${String(signal)}) at ${journal.t(Date.now())}`,
    );
    journal.step(`${replica.identity} exited by itself; restarting its slot`);
    setTimeout(() => {
      if (!this.stopping) void this.start(replica.slot);
    }, 1_000);
  }

  /** Replicas that listen and have not been killed or exited, ready or not. */
  running(): Replica[] {
    return this.all.filter((r) => r.url !== undefined && !r.killed && !r.exited);
  }

  /** Replicas in the Service's pool: running, and ready by their probe. */
  live(): Replica[] {
    return this.running().filter((r) => r.inPool);
  }

  /** Probes every running replica's readiness every period until stopAll(). */
  async probe(): Promise<void> {
    while (!this.stopping) {
      await Promise.all(this.running().map((r) => probeOnce(r)));
      await new Promise((resolve) => setTimeout(resolve, PROBE.periodMs));
    }
  }

  /** The newest generation of every slot, whatever its state. */
  newest(): Replica[] {
    const out = new Map<string, Replica>();
    for (const r of this.all) out.set(r.slot, r);
    return [...out.values()];
  }

  /** The replica whose identity is `identity`, if any. */
  byIdentity(identity: string): Replica | undefined {
    return this.all.find((r) => r.identity === identity);
  }

  /** SIGKILLs `replica` at once: no graceful shutdown, no Lease release. */
  kill(replica: Replica): void {
    replica.killed = true;
    replica.child.kill('SIGKILL');
  }

  /** SIGKILLs every replica still running and waits until each has exited. */
  async stopAll(): Promise<void> {
    this.stopping = true;
    const running = this.all.filter((r) => !r.exited);
    const exits = running.map(
      (r) =>
        new Promise<void>((resolve) => {
          r.child.once('exit', () => {
            resolve();
          });
        }),
    );
    for (const r of running) r.child.kill('SIGKILL');
    await Promise.all(exits);
    process.removeListener('exit', this.onExit);
  }

  /** Resolves once every slot's newest replica is in the pool, or after `ms` (false then). */
  async allReady(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    const pooled = () => this.newest().every((r) => r.inPool && !r.killed && !r.exited);
    while (!pooled() && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return pooled();
  }

  /** The last `lines` lines of every replica's log, for a failure's diagnosis. */
  tails(lines: number): string {
    return this.all
      .map((r) => {
        let text = '';
        try {
          text = readFileSync(r.logFile, 'utf8');
        } catch {
          text = '(no log)';
        }
        const tail = text.trimEnd().split('\n').slice(-lines).join('\n');
        return `--- ${r.identity} (${r.logFile}) ---\n${tail}`;
      })
      .join('\n');
  }
}

/** One readiness probe of `replica` (not one of the test's requests: never recorded). */
async function probeOnce(replica: Replica): Promise<void> {
  let ready = false;
  try {
    const response = await fetch(`${String(replica.url)}/readyz`, {
      signal: AbortSignal.timeout(1_000),
    });
    await response.body?.cancel();
    ready = response.status === 200;
  } catch {
    ready = false;
  }
  replica.failedProbes = ready ? 0 : replica.failedProbes + 1;
  if (ready) replica.inPool = true;
  else if (replica.failedProbes >= PROBE.failureThreshold) replica.inPool = false;
}
