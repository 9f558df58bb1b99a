import {
  Observable,
  type ConfigurationOptions,
  type ObservableMiddleware,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';

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
 * Per-call options that abort after `timeoutMs`, so a hung cluster turns into a Timeout
 * failure instead of a stuck worker: client-node 1.x has no timeout setting of its own.
 */
export function timeoutOptions(timeoutMs: number): ConfigurationOptions {
  return {
    middleware: [
      middleware((context) => {
        context.setSignal(AbortSignal.timeout(timeoutMs));
      }),
    ],
    middlewareMergeStrategy: 'append',
  };
}

/** Per-call options with a timeout and the Content-Type a patch call needs. */
export function patchOptions(timeoutMs: number, contentType: string): ConfigurationOptions {
  return {
    middleware: [
      middleware((context) => {
        context.setSignal(AbortSignal.timeout(timeoutMs));
      }),
      middleware((context) => {
        context.setHeaderParam('Content-Type', contentType);
      }),
    ],
    middlewareMergeStrategy: 'append',
  };
}
