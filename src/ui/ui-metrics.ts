/**
 * The web view's metrics, on the gateway's registry beside its own (docs/ui.md): what the view
 * answers, and its live streams (how many are open, and why they end: a reader gone, a reader
 * too slow to keep up, or a shutdown). Label values are bounded: route patterns and fixed words.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { CloseCause } from './live-stream.js';

/** What the view reports; see the module comment. */
export interface UiMetrics {
  /** Counts one answered view request by route pattern (`_unmatched` for none) and status. */
  request(route: string, status: number): void;
  /** Counts one live stream that ended, by cause. */
  streamClosed(cause: CloseCause): void;
  /** Where the open-streams gauge reads at scrape time (0 until bound). */
  bindStreams(open: () => number): void;
}

/** The view's metrics, registered on `registry` (once per registry). */
export function uiMetrics(registry: Registry): UiMetrics {
  const registers = [registry];
  const requests = new Counter({
    name: 'promotion_gateway_ui_requests_total',
    help: 'Web view requests answered, by route pattern and status code.',
    labelNames: ['route', 'status'] as const,
    registers,
  });
  const closed = new Counter({
    name: 'promotion_gateway_ui_live_streams_closed_total',
    help: 'Web view live streams ended, by cause: client (the reader left), slow (it could not keep up and was dropped), shutdown.',
    labelNames: ['cause'] as const,
    registers,
  });
  let open = (): number => 0;
  new Gauge({
    name: 'promotion_gateway_ui_live_streams',
    help: 'Web view live streams open now.',
    registers,
    collect() {
      this.set(open());
    },
  });
  return {
    request: (route, status) => {
      requests.inc({ route, status: String(status) });
    },
    streamClosed: (cause) => {
      closed.inc({ cause });
    },
    bindStreams: (streams) => {
      open = streams;
    },
  };
}
