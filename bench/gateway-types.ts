/**
 * Messages between the benchmark and the gateway child process (gateway-process.ts), and the
 * reference route's start message (reference-process.ts).
 */
import type { Level } from 'pino';
import type { FleetInfo } from './fleet-types.js';
import type { MemoryReport } from './memory.js';

/** A request as the load client sends it. */
export interface SignedEvent {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** Parent -> child, first message: what to build the gateway against. */
export interface GatewayStart {
  type: 'start';
  fleet: FleetInfo;
  logLevel: Level;
}

/** Parent -> reference-process.ts, first message: the HMAC key (text) its events are signed with. */
export interface ReferenceStart {
  type: 'start';
  key: string;
}

/** Parent -> child afterwards; each is answered by a GatewayReply with the same id. */
export type GatewayRequest =
  | { type: 'idle'; id: number }
  | { type: 'hint-stats'; id: number }
  | { type: 'memory-phase'; id: number; phase: string }
  | { type: 'memory-report'; id: number };

/** Child -> parent. */
export type GatewayMessage =
  | {
      type: 'ready';
      port: number;
      /** The web view's port (part (g)). */
      uiPort?: number;
      referenced: SignedEvent;
      unreferenced: SignedEvent;
    }
  | { type: 'reply'; id: number; value?: Record<string, number> | MemoryReport };
