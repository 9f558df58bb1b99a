/**
 * Fault injection for one cluster: latency, error responses at a rate, hung requests, a cluster
 * that refuses connections, and dropping every open watch or every open connection. Latency, errors and hangs apply to
 * resource requests (optionally narrowed by verb/resource); discovery is left alone so clients
 * can still start. All randomness comes from the injected random source.
 */
import { FaultBook, type DelayStats } from 'sim-kit';
import type { ResourceRequest, Verb } from './request-info.js';
import type { KubeStatus } from './status-errors.js';
import { statusForCode } from './status-errors.js';

/** Which resource requests a fault applies to; omitted lists mean "all". */
export interface RequestMatch {
  verbs?: (Verb | '*')[];
  /** 'plural' or 'plural.group' (or '*'). */
  resources?: string[];
}

/** Adds `fixedMs + random() * jitterMs` before answering. */
export interface LatencyFault extends RequestMatch {
  fixedMs: number;
  jitterMs?: number;
}

/** Answers with `code` (a real-server Status body) for a `rate` fraction of matching requests. */
export interface ErrorFault extends RequestMatch {
  /** 0..1; 1 fails every matching request, deterministically. */
  rate: number;
  /** HTTP status, e.g. 500, 503, 429. */
  code: number;
  message?: string;
}

/** Holds matching requests unanswered until the hang fault is cleared. */
export type HangFault = RequestMatch;

/** The faults in force on a cluster. Setting a key replaces that kind of fault. */
export interface FaultSpec {
  latency?: LatencyFault;
  errors?: ErrorFault[];
  hang?: HangFault;
  /**
   * The cluster stops listening (ECONNREFUSED) until cleared; it returns on the same port. Every
   * open connection is destroyed at once, idle, busy or still in its TLS handshake.
   */
  down?: boolean;
}

/** The kinds of fault `clear` can remove. */
export type FaultKind = keyof FaultSpec;

/** What fault injection has done so far (for tests that must not rely on wall time). */
export interface FaultStats extends DelayStats {
  injectedErrors: number;
  watchesClosed: number;
  /** Connections dropped by `closeConnections`. */
  connectionsClosed: number;
}

/** Hooks the cluster gives the controller for the faults that touch its listener and watches. */
export interface FaultHooks {
  setDown(down: boolean): Promise<void>;
  closeWatches(): number;
  closeConnections(): number;
}

function matches(m: RequestMatch, req: ResourceRequest): boolean {
  const verbOk = m.verbs === undefined || m.verbs.includes('*') || m.verbs.includes(req.verb);
  const qualified = req.group === '' ? req.resource : `${req.resource}.${req.group}`;
  const resOk =
    m.resources === undefined ||
    m.resources.some((r) => r === '*' || r === req.resource || r === qualified);
  return verbOk && resOk;
}

/** The fault switchboard of one cluster (`cluster.faults`). */
export class FaultController {
  private readonly book: FaultBook<FaultSpec>;
  private readonly counters = { injectedErrors: 0, watchesClosed: 0, connectionsClosed: 0 };

  constructor(
    private readonly hooks: FaultHooks,
    private readonly random: () => number,
    sleep: (ms: number) => Promise<void>,
  ) {
    this.book = new FaultBook(sleep);
  }

  /**
   * Adds or replaces the given kinds of fault, in force from this call on for every request not
   * yet past its fault check; `down: true` resolves once the listener is closed and every
   * connection destroyed.
   */
  async set(spec: FaultSpec): Promise<void> {
    const wasDown = this.book.spec.down === true;
    this.book.set(spec);
    if (spec.down !== undefined && spec.down !== wasDown) await this.hooks.setDown(spec.down);
  }

  /** Removes one kind of fault, or all of them; releases hung requests and brings a down cluster back. */
  async clear(kind?: FaultKind): Promise<void> {
    const wasDown = this.book.spec.down === true;
    this.book.clear(kind);
    if (wasDown && this.book.spec.down !== true) await this.hooks.setDown(false);
  }

  /** Ends every open watch stream now (clients see a clean end of stream). Returns how many. */
  closeWatches(): number {
    const n = this.hooks.closeWatches();
    this.counters.watchesClosed += n;
    return n;
  }

  /**
   * Destroys every open client connection now, idle keep-alive ones and watch streams included,
   * as a server or load balancer dropping idle sockets would. Returns how many.
   */
  closeConnections(): number {
    const n = this.hooks.closeConnections();
    this.counters.connectionsClosed += n;
    return n;
  }

  /** The faults in force. */
  current(): FaultSpec {
    return this.book.current();
  }

  /** Counters of what has been injected so far. */
  stats(): FaultStats {
    return { ...this.counters, ...this.book.stats() };
  }

  /**
   * Applies latency, hang and error faults to a request. Resolves to a Status to answer with
   * instead of serving the request, or undefined to serve it normally.
   */
  async before(req: ResourceRequest): Promise<KubeStatus | undefined> {
    // Each kind is read when it applies: a fault set while a request waits still meets it.
    const latency = this.book.spec.latency;
    if (latency !== undefined && matches(latency, req))
      await this.book.delay(latency.fixedMs + this.random() * (latency.jitterMs ?? 0));
    const hang = this.book.spec.hang;
    if (hang !== undefined && matches(hang, req)) await this.book.hold();
    for (const fault of this.book.spec.errors ?? []) {
      if (matches(fault, req) && this.random() < fault.rate) {
        this.counters.injectedErrors++;
        return statusForCode(fault.code, fault.message);
      }
    }
    return undefined;
  }
}
