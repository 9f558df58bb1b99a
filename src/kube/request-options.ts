import {
  Observable,
  type ConfigurationOptions,
  type ObservableMiddleware,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';
import { sharedAgentPool } from './agent-pool.js';
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

/**
 * Swaps the fresh, keep-alive-less agent client-node made for this call for a pooled
 * keep-alive one with the same TLS options (see agent-pool.ts). This runs after the request
 * factory applied authentication (which set the fresh agent) and before `httpApi.send`.
 */
const pooledAgent = middleware((context) => {
  const fresh = context.getAgent();
  const pooled = sharedAgentPool.swap(fresh);
  if (pooled !== undefined && pooled !== fresh) context.setAgent(pooled);
});

/** Stateless, so one instance serves every call. */
const staleSocketRetry = new StaleSocketRetry();

/**
 * Per-call options that abort after `timeoutMs`, so a hung cluster turns into a Timeout
 * failure instead of a stuck worker: client-node 1.x has no timeout setting of its own.
 * They also reuse pooled keep-alive connections and retry a GET once on a dead one.
 */
export function timeoutOptions(timeoutMs: number): ConfigurationOptions {
  return {
    middleware: [
      pooledAgent,
      middleware((context) => {
        context.setSignal(AbortSignal.timeout(timeoutMs));
      }),
    ],
    middlewareMergeStrategy: 'append',
    httpApi: staleSocketRetry,
  };
}

/** Per-call options with a timeout and the Content-Type a patch call needs (pooled too). */
export function patchOptions(timeoutMs: number, contentType: string): ConfigurationOptions {
  return {
    middleware: [
      pooledAgent,
      middleware((context) => {
        context.setSignal(AbortSignal.timeout(timeoutMs));
      }),
      middleware((context) => {
        context.setHeaderParam('Content-Type', contentType);
      }),
    ],
    middlewareMergeStrategy: 'append',
    httpApi: staleSocketRetry,
  };
}
