/**
 * The messages between the benchmark (parent) and its load-generator child process.
 */
import type { HistogramData } from './histogram.js';

/** One load run: the same pre-built request sent over keep-alive connections until done. */
export interface LoadSpec {
  host: string;
  port: number;
  method: 'POST' | 'GET';
  path: string;
  headers: Record<string, string>;
  body: string;
  /** Concurrent keep-alive connections, one request in flight on each. */
  connections: number;
  /** Stop issuing new requests after this long (ms), if given. */
  durationMs?: number;
  /** Stop issuing new requests after this many, if given. */
  requests?: number;
  /** Hard limit: connections are destroyed and the run reported after this long. */
  timeoutMs: number;
}

/** What a run measured, from the client's side. */
export interface LoadResult {
  /** Responses received completely. */
  completed: number;
  /** Requests that got no response (socket error or close mid-request). */
  errors: number;
  /** Response counts by HTTP status code. */
  statuses: Record<string, number>;
  /** From the first request written to the last response read. */
  elapsedMs: number;
  /** completed / elapsed seconds. */
  rps: number;
  latency: HistogramData;
  /** True when the hard timeout ended the run. */
  timedOut: boolean;
  /** TCP connections opened (reconnects included). */
  connectionsOpened: number;
  /** CPU time (user + system) the client process used during the run, in ms. */
  clientCpuMs: number;
  /** Times the client's event loop blocked waiting for I/O (voluntary context switches). */
  clientVoluntarySwitches: number;
  /** The client process's resident set size at the end of the run. */
  clientRssBytes: number;
}

/** Parent -> child. Closing the IPC channel makes the child exit. */
export interface ToClient {
  type: 'run';
  id: number;
  spec: LoadSpec;
}

/** Child -> parent. */
export type FromClient =
  | { type: 'ready' }
  | { type: 'result'; id: number; result: LoadResult }
  | { type: 'error'; id: number; message: string };
