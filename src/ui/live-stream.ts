/**
 * One open live-update stream (Server-Sent Events) on its HTTP response. Writes are bounded:
 * when more than `maxBacklogBytes` of earlier frames are still unsent (a slow or stalled
 * client), the stream is dropped instead of buffering without end; the browser reconnects by
 * itself and catches up from its last event id, so a dropped stream loses nothing. The registry
 * caps how many are open, in all and per viewer.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { PipelineId } from '../pipeline/id.js';
import type { Viewer } from './ui-access.js';
import { sseRetry } from './sse.js';

/** Why a stream ended. */
export type CloseCause = 'client' | 'slow' | 'shutdown';

/** The headers of every stream: no caching, no buffering by proxies, and the view's CSP. */
export const STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  // nginx (and ingress-nginx) buffer responses by default, which would hold events back.
  'x-accel-buffering': 'no',
};

/** An open stream. */
export class LiveStream {
  private open = true;
  private readonly listeners: ((cause: CloseCause) => void)[] = [];
  /** The last Pipeline body sent (Pipeline streams), to send only what changed. */
  lastBody: string | undefined;

  constructor(
    private readonly response: ServerResponse,
    readonly viewer: Viewer,
    /** The Pipeline this stream follows; undefined = the fleet. */
    readonly pipeline: PipelineId | undefined,
    private readonly maxBacklogBytes: number,
  ) {
    response.on('close', () => {
      this.finish('client');
    });
  }

  /** Whether the stream is still open. */
  get isOpen(): boolean {
    return this.open;
  }

  /**
   * Writes `text`; false when the stream is closed, or is dropped now because more than the
   * bound of earlier writes is still waiting for the client.
   */
  send(text: string): boolean {
    if (!this.open) return false;
    if (this.response.writableLength > this.maxBacklogBytes) {
      this.finish('slow');
      this.response.destroy();
      return false;
    }
    this.response.write(text);
    return true;
  }

  /** Ends the stream (shutdown). */
  close(): void {
    if (!this.open) return;
    this.finish('shutdown');
    this.response.end();
  }

  /** Calls `listener` once when the stream ends, whatever ends it. */
  onClose(listener: (cause: CloseCause) => void): void {
    this.listeners.push(listener);
  }

  private finish(cause: CloseCause): void {
    if (!this.open) return;
    this.open = false;
    for (const listener of this.listeners) listener(cause);
  }
}

/** How many streams may be open, and how much each may leave unsent. */
export interface StreamLimits {
  maxStreams: number;
  /** Per viewer subject; anonymous readers are not counted apart. */
  maxStreamsPerViewer: number;
  maxBacklogBytes: number;
  /** The `retry:` (ms) every stream starts with. */
  retryMs: number;
}

/** The open streams of one replica, within their caps. */
export class StreamRegistry {
  private readonly streams = new Set<LiveStream>();
  private readonly perViewer = new Map<string, number>();

  constructor(
    private readonly limits: StreamLimits,
    private readonly closed: (stream: LiveStream, cause: CloseCause) => void,
  ) {}

  get size(): number {
    return this.streams.size;
  }

  /** The open streams (a copy: sending may close some). */
  all(): LiveStream[] {
    return [...this.streams];
  }

  /** Whether one more stream of `viewer` may open now. */
  admits(viewer: Viewer): boolean {
    const held = this.perViewer.get(viewer.subject) ?? 0;
    const counted = viewer.subject !== 'anonymous';
    return (
      this.streams.size < this.limits.maxStreams &&
      (!counted || held < this.limits.maxStreamsPerViewer)
    );
  }

  /**
   * Starts a stream on `response` (status 200, `headers` and the stream's own, then `retry:`),
   * or answers undefined and writes nothing when the caps do not admit it.
   */
  open(
    response: ServerResponse,
    viewer: Viewer,
    pipeline: PipelineId | undefined,
    headers: OutgoingHttpHeaders,
  ): LiveStream | undefined {
    if (!this.admits(viewer)) return undefined;
    const stream = new LiveStream(response, viewer, pipeline, this.limits.maxBacklogBytes);
    this.streams.add(stream);
    this.perViewer.set(viewer.subject, (this.perViewer.get(viewer.subject) ?? 0) + 1);
    stream.onClose((cause) => {
      this.streams.delete(stream);
      const left = (this.perViewer.get(viewer.subject) ?? 1) - 1;
      if (left <= 0) this.perViewer.delete(viewer.subject);
      else this.perViewer.set(viewer.subject, left);
      this.closed(stream, cause);
    });
    // The stream is idle between frames by design: no socket inactivity timeout applies.
    response.socket?.setTimeout(0);
    response.writeHead(200, { ...headers, ...STREAM_HEADERS });
    stream.send(sseRetry(this.limits.retryMs));
    return stream;
  }

  /** Ends every stream. */
  closeAll(): void {
    for (const stream of this.all()) stream.close();
  }
}
