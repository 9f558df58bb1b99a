/**
 * How every client-node call of one gateway is made. client-node 1.x has no timeout setting
 * of its own and opens a new TLS connection per call, so each call gets per-call options that
 * abort it after a timeout, swap in a pooled keep-alive agent (agent-pool.ts), and retry a GET
 * once on a connection the server had already closed (stale-socket-retry.ts).
 */
import {
  Observable,
  type ConfigurationOptions,
  type ObservableMiddleware,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';
import type { AgentPool } from './agent-pool.js';
import { CallTimeout } from './call-timeout.js';
import { StaleSocketRetry } from './stale-socket-retry.js';

function middleware(pre: (context: RequestContext) => void): ObservableMiddleware {
  return {
    pre: (context: RequestContext) => {
      pre(context);
      return new Observable(Promise.resolve(context));
    },
    post: (context: ResponseContext) => new Observable(Promise.resolve(context)),
  };
}

/** Middleware that leaves the request alone and hands on `post`'s answer in place of the call's. */
export function answerMiddleware(
  post: (answer: ResponseContext) => Promise<ResponseContext>,
): ObservableMiddleware {
  return {
    pre: (context: RequestContext) => new Observable(Promise.resolve(context)),
    post: (answer: ResponseContext) => new Observable(post(answer)),
  };
}

/** Stateless, so one instance serves every call. */
const staleSocketRetry = new StaleSocketRetry();

/** The per-call options of one gateway's Kubernetes calls: a timeout and a connection pool. */
export class KubeCalls {
  private readonly pooledAgent: ObservableMiddleware;
  /** Each call bounded by the timeout (its timer disarmed when the call is over), GETs retried once. */
  private readonly httpApi: CallTimeout;

  /** Calls abort after `timeoutMs`; connections come from `pool`. */
  constructor(
    readonly timeoutMs: number,
    readonly pool: AgentPool,
  ) {
    // Runs after the request factory applied authentication (which set a fresh agent) and
    // before `httpApi.send`, so the fresh agent can be swapped for a pooled one.
    this.httpApi = new CallTimeout(timeoutMs, staleSocketRetry);
    this.pooledAgent = middleware((context) => {
      const fresh = context.getAgent();
      const pooled = pool.swap(fresh);
      if (pooled !== undefined && pooled !== fresh) context.setAgent(pooled);
    });
  }

  /** The same pool with a shorter timeout (a Lease renewal must give up by its deadline). */
  withTimeout(timeoutMs: number): KubeCalls {
    return new KubeCalls(Math.min(this.timeoutMs, timeoutMs), this.pool);
  }

  /**
   * Options for one call: bounded by the timeout, on pooled connections, GETs retried once;
   * `extra` middleware runs after ours (before the request is sent, after the answer came).
   */
  options(...extra: ObservableMiddleware[]): ConfigurationOptions {
    return this.build(extra);
  }

  /** options() plus the Content-Type a patch call needs. */
  patchOptions(contentType: string): ConfigurationOptions {
    return this.build([
      middleware((context) => {
        context.setHeaderParam('Content-Type', contentType);
      }),
    ]);
  }

  private build(extra: ObservableMiddleware[]): ConfigurationOptions {
    return {
      middleware: [this.pooledAgent, ...extra],
      middlewareMergeStrategy: 'append',
      httpApi: this.httpApi,
    };
  }
}
