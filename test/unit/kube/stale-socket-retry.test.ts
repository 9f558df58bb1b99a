import { Agent as HttpsAgent } from 'node:https';
import {
  HttpMethod,
  Observable,
  RequestContext,
  ResponseContext,
  type HttpLibrary,
} from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { PooledAgent } from '../../../src/kube/agent-pool.js';
import { StaleSocketRetry } from '../../../src/kube/stale-socket-retry.js';

/** A FetchError-like failure as node-fetch reports a socket the server closed. */
function socketError(code: string): Error {
  return Object.assign(new Error(`request failed, reason: socket hang up`), { code });
}

/** An HttpLibrary answering from a script: an Error entry fails that attempt. */
function scripted(outcomes: (Error | number)[]): HttpLibrary & { calls: number } {
  const library = {
    calls: 0,
    send: () => {
      const outcome = outcomes[library.calls++] ?? 200;
      return new Observable(
        outcome instanceof Error
          ? Promise.reject(outcome)
          : Promise.resolve(
              new ResponseContext(
                outcome,
                {},
                { text: () => Promise.resolve(''), binary: () => Promise.resolve(Buffer.alloc(0)) },
              ),
            ),
      );
    },
  };
  return library;
}

function request(method: HttpMethod, agent: HttpsAgent = new PooledAgent()): RequestContext {
  const context = new RequestContext('https://127.0.0.1:6443/api', method);
  context.setAgent(agent);
  return context;
}

async function outcome(retry: StaleSocketRetry, context: RequestContext): Promise<unknown> {
  return retry
    .send(context)
    .toPromise()
    .then(
      (response) => response.httpStatusCode,
      (err: unknown) => (err as { code?: unknown }).code,
    );
}

describe('StaleSocketRetry', () => {
  it('retries a pooled GET once on ECONNRESET or EPIPE', async () => {
    for (const code of ['ECONNRESET', 'EPIPE']) {
      const inner = scripted([socketError(code), 200]);
      expect(await outcome(new StaleSocketRetry(inner), request(HttpMethod.GET))).toBe(200);
      expect(inner.calls).toBe(2);
    }
  });

  it('finds the code on a wrapped cause', async () => {
    const wrapped = Object.assign(new Error('wrapped'), { cause: socketError('ECONNRESET') });
    const inner = scripted([wrapped, 200]);
    expect(await outcome(new StaleSocketRetry(inner), request(HttpMethod.GET))).toBe(200);
  });

  it('gives up after the one retry', async () => {
    const inner = scripted([socketError('ECONNRESET'), socketError('ECONNRESET'), 200]);
    const result = await outcome(new StaleSocketRetry(inner), request(HttpMethod.GET));
    expect(result).toBe('ECONNRESET');
    expect(inner.calls).toBe(2);
  });

  it('never retries writes, other errors, unpooled agents or aborted requests', async () => {
    const cases: [RequestContext, Error][] = [
      [request(HttpMethod.PUT), socketError('ECONNRESET')],
      [request(HttpMethod.PATCH), socketError('ECONNRESET')],
      [request(HttpMethod.POST), socketError('ECONNRESET')],
      [request(HttpMethod.GET), socketError('ECONNREFUSED')],
      [request(HttpMethod.GET, new HttpsAgent()), socketError('ECONNRESET')],
    ];
    const aborted = request(HttpMethod.GET);
    aborted.setSignal(AbortSignal.abort());
    cases.push([aborted, socketError('ECONNRESET')]);
    for (const [context, error] of cases) {
      const inner = scripted([error, 200]);
      expect(await outcome(new StaleSocketRetry(inner), context)).toBe(
        (error as { code?: string }).code,
      );
      expect(inner.calls).toBe(1);
    }
  });

  it('passes answers, error statuses included, through untouched', async () => {
    const inner = scripted([409]);
    expect(await outcome(new StaleSocketRetry(inner), request(HttpMethod.GET))).toBe(409);
    expect(inner.calls).toBe(1);
  });
});
