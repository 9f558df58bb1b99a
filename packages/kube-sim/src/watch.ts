/**
 * Watch streams as the real server sends them: a 200 response of newline-delimited
 * `{"type","object"}` events; initial ADDED events when no resourceVersion is given; replay from
 * a resourceVersion, or a single ERROR event carrying a 410 Expired Status when it is too old;
 * BOOKMARK events when asked; an end after timeoutSeconds; and selector-aware ADDED/DELETED
 * when an object starts or stops matching.
 */
import type { ServerResponse } from 'node:http';
import { asServed } from './meta.js';
import type { ResourceType, SimObject } from './resources.js';
import { apiVersionOf, groupResource } from './resources.js';
import type { Matcher } from './selectors.js';
import { badRequest, expired } from './status-errors.js';
import type { ObjectStore, StoreEvent } from './store.js';

/** What a watch asks for (from the query string). */
export interface WatchParams {
  type: ResourceType;
  namespace: string;
  matcher: Matcher;
  resourceVersion: string;
  allowBookmarks: boolean;
  sendInitialEvents: boolean;
  timeoutSeconds: number | undefined;
}

/** Timings of watch streams; bookmarks are frequent by default so short tests can see them. */
export interface WatchTimings {
  bookmarkIntervalMs: number;
  /** Used when the client sends no timeoutSeconds (the real server picks 30-60 min). */
  defaultTimeoutMs: number;
}

/** Tracks open watch streams of one cluster so they can be closed on demand. */
export class WatchManager {
  private readonly open = new Set<() => void>();

  constructor(
    private readonly store: ObjectStore,
    private readonly timings: WatchTimings,
  ) {}

  /** Number of watch streams currently open. */
  openCount(): number {
    return this.open.size;
  }

  /** Ends every open stream (a clean end of body, as when the server drops a watch). */
  closeAll(): number {
    const closers = [...this.open];
    for (const close of closers) close();
    return closers.length;
  }

  /** Starts streaming to `res`; throws a 400 SimError (before any byte is sent) on a bad resourceVersion. */
  serve(res: ServerResponse, p: WatchParams): void {
    const gr = groupResource(p.type);
    let replay: StoreEvent[] | undefined;
    let expiredAt: number | undefined;
    const initial = p.resourceVersion === '' || p.resourceVersion === '0' || p.sendInitialEvents;
    if (!initial) {
      const rv = Number(p.resourceVersion);
      if (!Number.isInteger(rv) || rv < 0)
        throw badRequest(`invalid resource version: ${p.resourceVersion}`);
      const since = this.store.eventsSince(gr, rv);
      if (Array.isArray(since)) replay = since;
      else expiredAt = since.expired;
    }
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
    });
    res.flushHeaders();
    const send = (type: string, object: unknown): void => {
      res.write(`${JSON.stringify({ type, object })}\n`);
    };
    if (expiredAt !== undefined) {
      send('ERROR', expired(Number(p.resourceVersion), expiredAt));
      res.end();
      return;
    }
    const inScope = (o: SimObject): boolean => {
      const meta = o.metadata as Record<string, unknown> | undefined;
      const ns = typeof meta?.namespace === 'string' ? meta.namespace : '';
      return (p.namespace === '' || ns === p.namespace) && p.matcher(o);
    };
    const deliver = (e: StoreEvent): void => {
      const now = inScope(e.object);
      const before = e.previous !== undefined && inScope(e.previous);
      if (e.type === 'MODIFIED') {
        if (now && before) send('MODIFIED', asServed(p.type, e.object));
        else if (now) send('ADDED', asServed(p.type, e.object));
        else if (before) send('DELETED', asServed(p.type, e.object));
      } else if (now) {
        send(e.type, asServed(p.type, e.object));
      }
    };
    const bookmark = (annotations?: Record<string, string>): void => {
      const metadata: Record<string, unknown> = { resourceVersion: String(this.store.currentRv()) };
      if (annotations !== undefined) metadata.annotations = annotations;
      send('BOOKMARK', { kind: p.type.kind, apiVersion: apiVersionOf(p.type), metadata });
    };
    if (initial) {
      const scope = p.type.namespaced ? p.namespace : '';
      for (const o of this.store.list(gr, scope))
        if (inScope(o)) send('ADDED', asServed(p.type, o));
      if (p.sendInitialEvents && p.allowBookmarks)
        bookmark({ 'k8s.io/initial-events-end': 'true' });
    }
    for (const e of replay ?? []) deliver(e);
    const unsubscribe = this.store.subscribe(gr, deliver);
    const timers: NodeJS.Timeout[] = [];
    const close = (): void => {
      if (!this.open.delete(close)) return;
      unsubscribe();
      for (const t of timers) clearTimeout(t);
      res.end();
    };
    this.open.add(close);
    if (p.allowBookmarks)
      timers.push(
        setInterval(() => {
          bookmark();
        }, this.timings.bookmarkIntervalMs),
      );
    const timeoutMs =
      p.timeoutSeconds !== undefined ? p.timeoutSeconds * 1000 : this.timings.defaultTimeoutMs;
    timers.push(setTimeout(close, timeoutMs));
    res.on('close', close);
  }
}
