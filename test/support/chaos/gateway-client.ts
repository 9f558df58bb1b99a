/**
 * The test's HTTP client to the replicas: each request goes to a random live replica, and one
 * that gets no answer (the replica was killed, or is restarting) goes to another, as Flux and
 * a load balancer would. Every answer is recorded in the journal; connection errors are not
 * answers and are only counted.
 */
import type { Answer, Journal } from './journal.js';
import type { Replicas } from './replicas.js';

/** An answer as the caller sees it. */
export interface Answered {
  status: number;
  body: string;
  replica: string;
}

/** One request: its kind (for the summary), path and fetch init. */
export interface Request {
  kind: Answer['kind'];
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: Buffer | string;
}

/** How long one request may take before it counts as no answer. */
const REQUEST_TIMEOUT_MS = 15_000;

/** Random live replicas with retries on connection errors; the requests in flight are tracked. */
export class GatewayClient {
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;

  constructor(
    private readonly replicas: Replicas,
    private readonly journal: Journal,
    private readonly random: () => number,
  ) {}

  /** Sends `request` until a replica answers or `deadlineMs` passes (undefined then). */
  send(request: Request, deadlineMs = 20_000): Promise<Answered | undefined> {
    return this.track(this.attempt(request, Date.now() + deadlineMs, undefined));
  }

  /**
   * Sends `request` to every live replica at once (each retried elsewhere if its replica dies):
   * the same event reaching both replicas together, the race the status claim must decide.
   */
  sendEach(request: Request, deadlineMs = 20_000): Promise<(Answered | undefined)[]> {
    const deadline = Date.now() + deadlineMs;
    return Promise.all(
      this.replicas.live().map((r) => this.track(this.attempt(request, deadline, r.identity))),
    );
  }

  private track<T>(sending: Promise<T>): Promise<T> {
    this.inFlight.add(sending);
    void sending.finally(() => this.inFlight.delete(sending));
    return sending;
  }

  /** Replicas in the pool now (what sendEach sends to). */
  get live(): number {
    return this.replicas.live().length;
  }

  /** Gives up every retry from now on: for the end of the run, when no replica will answer. */
  close(): void {
    this.closed = true;
  }

  /** Waits for every request in flight (each is bounded by its deadline). */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private async attempt(
    request: Request,
    deadline: number,
    first: string | undefined,
  ): Promise<Answered | undefined> {
    let pinned = first;
    while (Date.now() < deadline && !this.closed) {
      const live = this.replicas.live();
      const replica =
        live.find((r) => r.identity === pinned) ?? live[Math.floor(this.random() * live.length)];
      pinned = undefined;
      if (replica?.url === undefined) {
        await sleep(100);
        continue;
      }
      try {
        const response = await fetch(`${replica.url}${request.path}`, {
          method: request.method,
          headers: request.headers,
          ...(request.body === undefined ? {} : { body: request.body }),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        const body = await response.text();
        const retryAfter = response.headers.get('retry-after') ?? undefined;
        this.record(request, replica.identity, response.status, body, retryAfter);
        return { status: response.status, body, replica: replica.identity };
      } catch {
        // Refused or reset (a killed replica), or no answer in time: not an answer; next one.
        this.journal.connectionErrors++;
        await sleep(50);
      }
    }
    this.journal.unanswered++;
    return undefined;
  }

  private record(
    request: Request,
    replica: string,
    status: number,
    body: string,
    retryAfter: string | undefined,
  ): void {
    const answer: Answer = {
      at: Date.now(),
      kind: request.kind,
      replica,
      path: request.path,
      status,
      ...(retryAfter === undefined ? {} : { retryAfter }),
    };
    if (status >= 400) {
      try {
        const code = (JSON.parse(body) as { code?: unknown; error?: unknown }).code;
        if (typeof code === 'string') answer.code = code;
      } catch {
        answer.code = body.slice(0, 80);
      }
    }
    this.journal.answers.push(answer);
  }
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
