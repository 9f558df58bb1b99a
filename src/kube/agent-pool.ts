/**
 * Keep-alive connection pooling for the gateway's Kubernetes calls.
 *
 * Why: client-node's KubeConfig hands out a brand-new `https.Agent` (no keepAlive) with a
 * cluster's TLS options each time it applies them (`applyToHTTPSOptions`), so every GET, LIST
 * and write would pay a new TCP connection and a full TLS handshake. rest.ts swaps that fresh
 * agent for a long-lived keep-alive agent built from the same options. Agents are keyed by a
 * sha256 of every option the fresh agent was given (CA, client cert and key,
 * rejectUnauthorized, servername, ...): a rotated kubeconfig Secret yields a new key and so a
 * new agent, and two clusters with different CAs can never share a connection. The key holds no
 * key material, only its hash; nothing here is logged.
 */
import { createHash, type Hash } from 'node:crypto';
import type { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions, type RequestOptions } from 'node:https';
import type { Duplex } from 'node:stream';
import { createSecureContext, type SecureContext, type TLSSocket } from 'node:tls';

/** Tunables of the pooled agents; every field has a default suited to API-server calls. */
export interface AgentPoolOptions {
  /** Distinct TLS configurations (about one per cluster) kept; the least recently used goes. */
  maxAgents?: number;
  /** Concurrent connections per API server; further requests queue in the agent. */
  maxSockets?: number;
  /** Idle connections kept per API server. */
  maxFreeSockets?: number;
  /** Initial delay of TCP keep-alive probes on pooled connections. */
  keepAliveMsecs?: number;
  /**
   * Idle connections are closed after this long. Below the idle timeouts of kube-apiserver and
   * common load balancers, so the client closes first; a server's `Keep-Alive: timeout=N` hint
   * shortens it further (Node applies hints only when the agent has a timeout at all).
   */
  idleTimeoutMs?: number;
}

/**
 * Why 64 and 16: the management API server takes every check's Pipeline GET, claim, Event and
 * outcome (32 checks at once) and the status writes (16 at once). With 16 sockets an API server
 * answering in 100 ms held a wave to 160 requests/s, about 6 per promotion (a wave of 8,000
 * promotions in 340-380 s); with 4 kept idle, each dip in a wave closed sockets the next
 * requests opened again (100-300 new TLS connections in a wave of 800 against 40). Target
 * clusters use far fewer: 4 LISTs and 4 hinted reads at most.
 */
const DEFAULTS: Required<AgentPoolOptions> = {
  maxAgents: 64,
  maxSockets: 64,
  maxFreeSockets: 16,
  keepAliveMsecs: 15_000,
  idleTimeoutMs: 30_000,
};

/**
 * A pooled keep-alive agent. Once evicted it is retired rather than destroyed at once:
 * `destroy()` would also kill requests still in flight on it, so it closes its idle sockets and
 * stops keeping the busy ones, which close when their response ends.
 */
export class PooledAgent extends HttpsAgent {
  private retired = false;
  /** The latest TLS session per connection key, to resume instead of a full handshake. */
  private readonly sessions = new Map<string, Buffer>();
  /** Made from the agent's TLS options at its first connection, then given to every one. */
  private secureContext: SecureContext | undefined;

  /**
   * Node's https.Agent, minus its own TLS session cache. Why: Node (22 and 24) installs the
   * cache's 'session' and 'close' listeners in a scope that also holds the callback of the
   * request that opened the socket, so every pooled socket kept that first request, its
   * response and its whole body (a LIST page: about 0.6 MB) alive for as long as it lived.
   * The same caching, done here, captures only the key.
   */
  override createConnection(
    options: RequestOptions,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const key = (options as { _agentKey?: unknown })._agentKey;
    if (typeof key !== 'string' || key === '') return super.createConnection(options, callback);
    const session = this.sessions.get(key);
    // Without `_agentKey` Node neither reads nor fills its own cache for this socket.
    const own: RequestOptions & {
      _agentKey?: string;
      session?: Buffer;
      secureContext?: SecureContext;
    } = { ...options };
    delete own._agentKey;
    if (session !== undefined) own.session = session;
    // Without one, tls.connect() makes a context per connection from the same CA, certificate
    // and key: an OpenSSL context each time, parsed anew, in the C heap. One serves them all:
    // Node lets an agent's options override a request's, and rest.ts sets TLS options on
    // the agent alone, so every connection of this agent has the agent's.
    own.secureContext ??= this.secureContext ??= createSecureContext(this.options);
    const socket = super.createConnection(own, callback) as TLSSocket | null | undefined;
    const sessions = this.sessions;
    socket?.on('session', (ticket: Buffer) => sessions.set(key, ticket));
    socket?.once('close', (hadError: boolean) => {
      if (hadError) sessions.delete(key);
    });
    return socket;
  }

  /** Closes idle sockets now and busy ones when their request ends; destroys it when idle. */
  retire(): void {
    this.retired = true;
    if (countSockets(this.sockets) === 0) {
      this.destroy();
      return;
    }
    for (const list of Object.values(this.freeSockets)) for (const s of list ?? []) s.destroy();
  }

  /** True once evicted from its pool. */
  isRetired(): boolean {
    return this.retired;
  }

  /** Node asks this before parking a socket as free; a retired agent parks none. */
  override keepSocketAlive(socket: Duplex): boolean {
    if (this.retired) return false;
    // Node's returns false when the server's Keep-Alive hint is too short; @types/node says void.
    const base: (socket: Duplex) => unknown = super.keepSocketAlive.bind(this);
    return base(socket) !== false;
  }
}

function countSockets(byName: NodeJS.ReadOnlyDict<unknown[]>): number {
  let n = 0;
  for (const list of Object.values(byName)) n += list?.length ?? 0;
  return n;
}

/**
 * Bounded LRU of keep-alive agents keyed by TLS-option fingerprint. Use `swap` on the agent
 * KubeConfig made for a call; see the file comment for why.
 */
export class AgentPool {
  // A Map iterates in insertion order; re-inserting on use makes the first key the LRU one.
  private readonly agents = new Map<string, PooledAgent>();
  private readonly settings: Required<AgentPoolOptions>;

  constructor(options: AgentPoolOptions = {}) {
    this.settings = { ...DEFAULTS, ...options };
  }

  /**
   * The pooled agent to use instead of `agent` (which is then destroyed: it has no sockets yet),
   * or `agent` unchanged when it is not exactly an `https.Agent` (proxy agents, plain HTTP) or
   * carries an option that cannot be fingerprinted.
   */
  swap(agent: HttpAgent | undefined): HttpAgent | undefined {
    if (!(agent instanceof HttpsAgent) || Object.getPrototypeOf(agent) !== HttpsAgent.prototype)
      return agent;
    const key = fingerprint(agent.options);
    if (key === undefined) return agent;
    const pooled = this.lookup(key) ?? this.add(key, agent.options);
    agent.destroy();
    return pooled;
  }

  /** Number of pooled agents. */
  get size(): number {
    return this.agents.size;
  }

  /** Retires every pooled agent and empties the pool (which stays usable). */
  clear(): void {
    for (const agent of this.agents.values()) agent.retire();
    this.agents.clear();
  }

  private lookup(key: string): PooledAgent | undefined {
    const agent = this.agents.get(key);
    if (agent === undefined) return undefined;
    this.agents.delete(key);
    this.agents.set(key, agent);
    return agent;
  }

  private add(key: string, options: AgentOptions): PooledAgent {
    const { maxSockets, maxFreeSockets, keepAliveMsecs, idleTimeoutMs } = this.settings;
    const agent = new PooledAgent({
      ...options,
      keepAlive: true,
      keepAliveMsecs,
      maxSockets,
      maxFreeSockets,
      timeout: idleTimeoutMs,
    });
    this.agents.set(key, agent);
    for (const [oldest, evicted] of this.agents) {
      if (this.agents.size <= this.settings.maxAgents) break;
      this.agents.delete(oldest);
      evicted.retire();
    }
    return agent;
  }
}

/**
 * sha256 (hex) over every defined option, names sorted, values tagged and length-prefixed, or
 * undefined when a value is not a string, Buffer, number, boolean, null or array of those.
 */
export function fingerprint(options: object): string | undefined {
  const hash = createHash('sha256');
  for (const name of Object.keys(options).sort()) {
    const value: unknown = Reflect.get(options, name);
    if (value === undefined) continue;
    hash.update(`${String(name.length)}:${name}=`);
    if (!feed(hash, value)) return undefined;
  }
  return hash.digest('hex');
}

function feed(hash: Hash, value: unknown): boolean {
  if (typeof value === 'string') return feedBytes(hash, 's', Buffer.from(value, 'utf8'));
  if (value instanceof Uint8Array) return feedBytes(hash, 'b', value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) {
    hash.update(`${typeof value}:${String(value)};`);
    return true;
  }
  if (Array.isArray(value)) {
    hash.update(`a${String(value.length)}[`);
    for (const item of value as unknown[]) if (!feed(hash, item)) return false;
    hash.update(']');
    return true;
  }
  return false;
}

function feedBytes(hash: Hash, tag: string, bytes: Uint8Array): true {
  hash.update(`${tag}${String(bytes.length)}:`);
  hash.update(bytes);
  return true;
}
