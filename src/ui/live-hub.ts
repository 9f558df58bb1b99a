/**
 * Live updates: the hub hears of every change to a watched Pipeline or to this replica's view
 * of it (FleetSource.subscribe), waits `coalesceMs` so that a burst becomes one frame, renders
 * what changed once, and sends each open stream what its viewer may see: the fleet's changed
 * rows and counts, or a followed Pipeline's body when it differs from what that stream has.
 * Every frame carries the change number it brings the page up to (`<instance>.<n>`, the SSE
 * id): a stream that reconnects with it gets only the rows changed since, and a number from
 * another replica or another run gets every row. Streams are capped and bounded
 * (live-stream.ts) and sent a ping every `heartbeatMs`.
 */
import { randomBytes } from 'node:crypto';
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Scheduler } from '../clock.js';
import type { GatewayLogger } from '../log.js';
import type { PipelineId } from '../pipeline/id.js';
import type { Viewer } from './ui-access.js';
import { FleetRows, type FleetSource } from './fleet-rows.js';
import { fleetFrame, pipelineFrame, visibleFleet, type VisibleFleet } from './live-frames.js';
import {
  StreamRegistry,
  type CloseCause,
  type LiveStream,
  type StreamLimits,
} from './live-stream.js';
import { sseFrame } from './sse.js';
import { trainsFrame, trainsSection, visibleTrains } from './train-rows.js';
import type { SafeHtml } from './html.js';

/** How the hub paces and bounds its streams. */
export interface LiveOptions extends StreamLimits {
  scheduler: Scheduler;
  logger: GatewayLogger;
  /** A burst of changes within this becomes one frame. */
  coalesceMs: number;
  heartbeatMs: number;
  /** Renders a followed Pipeline's page body (pipeline-page.ts); undefined when it is gone. */
  renderBody: Render;
  /** Told after each flush that sent frames, for the benchmark. */
  observe?: (report: FlushReport) => void;
  /** Told of each stream that ended, and why (the view's metrics). */
  onClosed?: (cause: CloseCause) => void;
}

/** One flush, for the benchmark: from the first change it carries to its frames written. */
export interface FlushReport {
  sinceChangeMs: number;
  renderMs: number;
  frames: number;
  bytes: number;
}

/** The defaults the gateway runs with (docs/ui.md, "Live updates"); maxStreams is ui.maxStreams. */
export const LIVE_DEFAULTS = {
  maxStreamsPerViewer: 16,
  coalesceMs: 100,
  heartbeatMs: 15_000,
  retryMs: 2_000,
  maxBacklogBytes: 1024 * 1024,
} as const;

/** Renders a followed Pipeline's body, or undefined when it is gone. */
export type Render = (id: PipelineId) => string | undefined;

/** What a flush sends a stream. */
interface Flush {
  ids: ReadonlySet<PipelineId>;
  changed: PipelineId[];
  planChanged: boolean;
  token: string;
  /** Whether the trains changed: every fleet stream gets their section. */
  trains: boolean;
  /** Frames by viewer scope and bodies by Pipeline, rendered once per flush. */
  frames: Map<string, string | undefined>;
  bodies: Map<PipelineId, string | undefined>;
}

/** The live-update hub of one replica. */
export class LiveHub {
  /** Identifies this hub's change numbers: another replica's or run's are not comparable. */
  readonly instance = randomBytes(4).toString('hex');
  readonly rows: FleetRows;
  private readonly streams: StreamRegistry;
  private readonly pending = new Set<PipelineId>();
  private trainsChanged = false;
  private firstPendingAt: number | undefined;
  private cancelFlush: (() => void) | undefined;
  private cancelHeartbeat: (() => void) | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly source: FleetSource,
    private readonly options: LiveOptions,
  ) {
    this.rows = new FleetRows(source);
    this.streams = new StreamRegistry(options, (stream, cause) => {
      const level = cause === 'slow' ? 'info' : 'debug';
      options.logger[level]({ subject: stream.viewer.subject, cause }, 'live stream closed');
      options.onClosed?.(cause);
    });
  }

  /** Renders the fleet once, then listens for changes and starts the heartbeat. */
  start(): void {
    this.rows.refresh([], true);
    const stopRows = this.source.subscribe((id) => {
      this.pending.add(id);
      this.changed();
    });
    const stopTrains = this.source.onTrains?.(() => {
      this.trainsChanged = true;
      this.changed();
    });
    this.unsubscribe = () => {
      stopRows();
      stopTrains?.();
    };
    this.heartbeat();
  }

  /** Stops listening and ends every stream. */
  stop(): void {
    this.unsubscribe?.();
    this.cancelFlush?.();
    this.cancelHeartbeat?.();
    this.streams.closeAll();
  }

  /** Streams open now. */
  get openStreams(): number {
    return this.streams.size;
  }

  /** Whether one more stream of `viewer` may open now. */
  admits(viewer: Viewer): boolean {
    return this.streams.admits(viewer);
  }

  /** The change number the fleet is at, brought up to date first. */
  token(): string {
    this.flush();
    return this.current();
  }

  /** The fleet as `viewer` may see it now, for the page, and the change number it is at. */
  snapshot(viewer: Viewer): VisibleFleet & { since: string; trains: SafeHtml } {
    const since = this.token();
    const trains = trainsSection(visibleTrains(this.source.trains?.() ?? [], viewer));
    return { ...visibleFleet(this.rows, viewer), since, trains };
  }

  /**
   * Opens a fleet stream on `response` (with `headers` besides the stream's own) and sends what
   * changed after `since`, the page's or the last event's id (every row when it is not ours).
   */
  openFleet(
    response: ServerResponse,
    viewer: Viewer,
    since: string | undefined,
    headers: OutgoingHttpHeaders = {},
  ): boolean {
    const token = this.token();
    const stream = this.streams.open(response, viewer, undefined, headers);
    if (stream === undefined) return false;
    const changes = this.rows.since(this.parse(since));
    const visible = changes.ids.filter((id) => viewer.sees(id));
    if (changes.complete || visible.length > 0)
      stream.send(
        fleetFrame(this.rows, viewer, { complete: changes.complete, ids: visible, token }),
      );
    // The trains' section is small: a stream taking up again gets it whole.
    if (this.source.trains !== undefined)
      stream.send(trainsFrame(this.source.trains(), viewer, token));
    return true;
  }

  /** Opens a stream following Pipeline `id` (which the caller checked the viewer may see). */
  openPipeline(
    response: ServerResponse,
    viewer: Viewer,
    id: PipelineId,
    headers: OutgoingHttpHeaders = {},
  ): boolean {
    const token = this.token();
    const stream = this.streams.open(response, viewer, id, headers);
    if (stream === undefined) return false;
    const frame = this.bodyFrame(stream, this.options.renderBody(id), token);
    if (frame !== undefined) stream.send(frame);
    return true;
  }

  private current(): string {
    return `${this.instance}.${String(this.rows.sequence)}`;
  }

  private changed(): void {
    this.firstPendingAt ??= this.options.scheduler.monotonic();
    // Nobody listens: the next page or stream brings the rows up to date first.
    if (this.streams.size === 0 || this.cancelFlush !== undefined) return;
    this.cancelFlush = this.options.scheduler.setTimer(this.options.coalesceMs, () => {
      this.cancelFlush = undefined;
      this.flush();
    });
  }

  /** Renders what changed and sends each stream its part. */
  private flush(): void {
    if (this.pending.size === 0 && !this.trainsChanged) return;
    const { scheduler } = this.options;
    const started = scheduler.monotonic();
    const first = this.firstPendingAt ?? started;
    const ids = new Set(this.pending);
    this.pending.clear();
    const trains = this.trainsChanged;
    this.trainsChanged = false;
    this.firstPendingAt = undefined;
    const { changed, planChanged } = this.rows.refresh(ids);
    const flush: Flush = {
      ...{ ids, changed, planChanged, trains, token: this.current() },
      frames: new Map(),
      bodies: new Map(),
    };
    let frames = 0;
    let bytes = 0;
    for (const stream of this.streams.all()) {
      const frame = this.frameFor(stream, flush);
      if (frame === undefined || !stream.send(frame)) continue;
      frames += 1;
      bytes += frame.length;
    }
    if (frames === 0) return;
    const now = scheduler.monotonic();
    this.options.observe?.({ sinceChangeMs: now - first, renderMs: now - started, frames, bytes });
  }

  private frameFor(stream: LiveStream, flush: Flush): string | undefined {
    const { viewer, pipeline } = stream;
    if (pipeline !== undefined) {
      if (!flush.ids.has(pipeline)) return undefined;
      if (!flush.bodies.has(pipeline))
        flush.bodies.set(pipeline, this.options.renderBody(pipeline));
      return this.bodyFrame(stream, flush.bodies.get(pipeline), flush.token);
    }
    // Viewers of the same scope see the same rows and counts: one frame for all of them.
    const key = viewer.scopeKey;
    if (!flush.frames.has(key)) {
      const ids = flush.planChanged ? [...this.rows.ids()] : flush.changed;
      const visible = ids.filter((id) => viewer.sees(id));
      const change = { complete: flush.planChanged, ids: visible, token: flush.token };
      const none = visible.length === 0 && !flush.planChanged;
      const rows = none ? '' : fleetFrame(this.rows, viewer, change);
      const trains =
        flush.trains && this.source.trains !== undefined
          ? trainsFrame(this.source.trains(), viewer, flush.token)
          : '';
      flush.frames.set(key, rows + trains === '' ? undefined : rows + trains);
    }
    return flush.frames.get(key);
  }

  /** The Pipeline frame for `stream`, unless it has that body already. */
  private bodyFrame(
    stream: LiveStream,
    body: string | undefined,
    token: string,
  ): string | undefined {
    const next =
      stream.pipeline !== undefined && stream.viewer.sees(stream.pipeline) ? body : undefined;
    if (next !== undefined && next === stream.lastBody) return undefined;
    stream.lastBody = next;
    return pipelineFrame(next, token);
  }

  private heartbeat(): void {
    this.cancelHeartbeat = this.options.scheduler.setTimer(this.options.heartbeatMs, () => {
      const ping = sseFrame({ event: 'ping', data: this.current() });
      for (const stream of this.streams.all()) stream.send(ping);
      this.heartbeat();
    });
  }

  /** The change number in `since` when it is one of this hub's, else undefined. */
  private parse(since: string | undefined): number | undefined {
    const match = /^([0-9a-f]{8})\.(\d{1,15})$/.exec(since ?? '');
    if (match?.[1] !== this.instance) return undefined;
    return Number(match[2]);
  }
}
