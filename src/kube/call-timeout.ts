/**
 * The timeout of one Kubernetes call, cleared as soon as the call is over.
 *
 * Why not `AbortSignal.timeout(ms)`: its timer stays armed for the whole timeout after the call
 * has answered (the signal is only weakly held, the timer is not), so every call kept a Timeout,
 * its closure and a WeakRef alive for `timeoutMs`: at fleet scale tens of thousands of them,
 * about 190 bytes each, all long-lived enough to reach the old space. client-node reads a
 * response's body after `send` resolves, so the timer is cleared when the body has been read
 * (or the call failed), and the body read stays bounded by the same timeout.
 */
import {
  Observable,
  ResponseContext,
  type HttpLibrary,
  type RequestContext,
} from '@kubernetes/client-node';
import { realScheduler, type Scheduler } from '../clock.js';
import { isStreamingBody, type StreamingBody } from './node-http.js';

/**
 * An HttpLibrary that aborts a call after `timeoutMs` and disarms the timer when it is over;
 * the timer is the scheduler's (unref'd like AbortSignal.timeout's), so tests drive it.
 */
export class CallTimeout implements HttpLibrary {
  constructor(
    private readonly timeoutMs: number,
    private readonly inner: HttpLibrary,
    private readonly scheduler: Scheduler = realScheduler,
  ) {}

  /** Sends through the inner library with this call's own abort signal. */
  send(request: RequestContext): Observable<ResponseContext> {
    return new Observable(this.timed(request));
  }

  private async timed(request: RequestContext): Promise<ResponseContext> {
    const controller = new AbortController();
    // Like AbortSignal.timeout's, the real scheduler's timer alone does not keep the process up.
    const disarm = this.scheduler.setTimer(this.timeoutMs, () => {
      controller.abort(new DOMException('The operation timed out.', 'TimeoutError'));
    });
    request.setSignal(controller.signal);
    let response: ResponseContext;
    try {
      response = await this.inner.send(request).toPromise();
    } catch (err) {
      disarm();
      throw err;
    }
    const { body } = response;
    const settled = <T>(read: Promise<T>): Promise<T> => read.finally(disarm);
    const whole = { text: () => settled(body.text()), binary: () => settled(body.binary()) };
    const timedBody: StreamingBody | typeof whole = isStreamingBody(body)
      ? { ...whole, each: (onText) => settled(body.each(onText)) }
      : whole;
    return new ResponseContext(response.httpStatusCode, response.headers, timedBody);
  }
}
