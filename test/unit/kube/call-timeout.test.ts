import {
  HttpMethod,
  Observable,
  RequestContext,
  ResponseContext,
  type HttpLibrary,
} from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { CallTimeout } from '../../../src/kube/call-timeout.js';
import { FakeScheduler, flush } from '../../support/fake-scheduler.js';

const TIMEOUT_MS = 40;

/** Resolves when `signal` aborts, with its reason's name (never, if it does not). */
function aborted(signal: AbortSignal | undefined): Promise<string> {
  return new Promise((resolve) => {
    signal?.addEventListener('abort', () => {
      resolve((signal.reason as Error).name);
    });
  });
}

/** An inner library whose answer and body read are given per test; it keeps the request. */
function library(answer: (request: RequestContext) => Promise<ResponseContext>) {
  const seen: RequestContext[] = [];
  const inner: HttpLibrary = {
    send: (request) => {
      seen.push(request);
      return new Observable(answer(request));
    },
  };
  return { inner, seen };
}

function response(text: () => Promise<string>): ResponseContext {
  return new ResponseContext(
    200,
    { 'content-type': 'application/json' },
    {
      text,
      binary: () => text().then((t) => Buffer.from(t)),
    },
  );
}

const call = () => new RequestContext('https://127.0.0.1:6443/api', HttpMethod.GET);

/** A CallTimeout over `inner` on a hand-driven clock. */
function timed(inner: HttpLibrary) {
  const scheduler = new FakeScheduler();
  return { scheduler, library: new CallTimeout(TIMEOUT_MS, inner, scheduler) };
}

describe('CallTimeout', () => {
  it('disarms the timer once the body has been read: the signal never aborts afterwards', async () => {
    const { inner, seen } = library(() => Promise.resolve(response(() => Promise.resolve('{}'))));
    const { scheduler, library: timeout } = timed(inner);
    const answer = await timeout.send(call()).toPromise();
    expect(answer.httpStatusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(scheduler.pending()).toBe(1);
    expect(await answer.body.text()).toBe('{}');
    expect(scheduler.pending()).toBe(0);
    scheduler.advance(TIMEOUT_MS * 3);
    expect(seen[0]?.getSignal()?.aborted).toBe(false);
  });

  it('disarms the timer when the call fails', async () => {
    const { inner, seen } = library(() => Promise.reject(new Error('connection refused')));
    const { scheduler, library: timeout } = timed(inner);
    await expect(timeout.send(call()).toPromise()).rejects.toThrow('connection refused');
    expect(scheduler.pending()).toBe(0);
    scheduler.advance(TIMEOUT_MS * 3);
    expect(seen[0]?.getSignal()?.aborted).toBe(false);
  });

  it('aborts a call that does not answer in time, with a TimeoutError, and not before', async () => {
    const { inner, seen } = library(async (request) => {
      const reason = await aborted(request.getSignal());
      throw Object.assign(new Error('aborted'), { name: 'AbortError', reason });
    });
    const { scheduler, library: timeout } = timed(inner);
    const failure = timeout
      .send(call())
      .toPromise()
      .catch((err: unknown) => err as Error & { reason: string });
    await flush();
    scheduler.advance(TIMEOUT_MS - 1);
    expect(seen[0]?.getSignal()?.aborted).toBe(false);
    scheduler.advance(1);
    expect(await failure).toMatchObject({ name: 'AbortError', reason: 'TimeoutError' });
  });

  it('keeps the timeout over the body read: a body that stalls is aborted too', async () => {
    const { inner } = library((request) =>
      Promise.resolve(
        response(async () => {
          throw new Error(`body: ${await aborted(request.getSignal())}`);
        }),
      ),
    );
    const { scheduler, library: timeout } = timed(inner);
    const answer = await timeout.send(call()).toPromise();
    const body = answer.body.text();
    scheduler.advance(TIMEOUT_MS);
    await expect(body).rejects.toThrow('body: TimeoutError');
  });
});
