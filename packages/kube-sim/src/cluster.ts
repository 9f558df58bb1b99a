/**
 * One simulated Kubernetes API server (`SimCluster`): an HTTP listener on loopback plus a code
 * API for tests, the demo and benchmarks. Writes from code go through the same semantics as
 * API writes (validation, resourceVersion, generation, watch events), but skip auth, faults
 * and request accounting.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { RequestCounter } from './accounting.js';
import type { AccessRule } from './auth.js';
import { Users } from './auth.js';
import { Connections } from './connections.js';
import { FaultController } from './faults.js';
import { renderKubeconfig } from './kubeconfig.js';
import { metaString } from './meta.js';
import { ObjectService } from './objects.js';
import { Registry } from './resources.js';
import type { ResourceType, SimObject } from './resources.js';
import { groupResource } from './resources.js';
import { requestListener } from './server.js';
import { ServiceAccountTokens } from './service-accounts.js';
import { badRequest, failure, SimError } from './status-errors.js';
import { ObjectStore } from './store.js';
import type { SimCertificate } from './tls.js';
import { selfSignedCertificate } from './tls.js';
import { WatchManager } from './watch.js';

/** Options of one cluster. Everything has a loopback-safe, test-friendly default. */
export interface SimClusterOptions {
  name: string;
  /** Only loopback addresses are sensible; default 127.0.0.1. */
  host?: string;
  /** 0 (default) picks an ephemeral port. */
  port?: number;
  /** Random source for names, uids, jitter and error rates; default Math.random. */
  random?: () => number;
  /** Clock for timestamps; default the system clock. */
  now?: () => Date;
  /** How latency faults wait; default setTimeout. */
  sleep?: (ms: number) => Promise<void>;
  /** Watch events kept per resource before older resourceVersions expire (410). Default 1000. */
  historyLimit?: number;
  /** Interval of BOOKMARK events on watches that allow them. Default 1000 ms. */
  bookmarkIntervalMs?: number;
  /** Watch length when the client sends no timeoutSeconds. Default 30 minutes. */
  watchTimeoutMs?: number;
  /**
   * HTTPS with a self-signed certificate made at start-up (default), a given certificate, or
   * false for plain HTTP. TLS is the default because kubectl (client-go) never sends a bearer
   * token to a plain-HTTP server, and client-node refuses plain HTTP unless TLS verification
   * is switched off (the plain-HTTP kubeconfig sets insecure-skip-tls-verify for that).
   */
  tls?: boolean | SimCertificate;
}

const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** A running simulated cluster. Create with `startCluster` (or through a fleet). */
export class SimCluster {
  /** The cluster's name (also its kubeconfig context name). */
  readonly name: string;
  /** Fault injection: `set`, `clear`, `closeWatches`, `closeConnections`, `current`, `stats`. */
  readonly faults: FaultController;
  /** Request and connection accounting: `snapshot`, `count`, `connections`, `reset`. */
  readonly requests = new RequestCounter();

  private readonly registry = new Registry();
  private readonly store: ObjectStore;
  private readonly objects: ObjectService;
  private readonly watches: WatchManager;
  private readonly users = new Users();
  private readonly server: Server;
  private readonly connections: Connections;
  private readonly host: string;
  private readonly certificate: SimCertificate | undefined;
  private boundPort: number;

  private constructor(opts: SimClusterOptions) {
    this.name = opts.name;
    this.host = opts.host ?? '127.0.0.1';
    this.boundPort = opts.port ?? 0;
    const random = opts.random ?? Math.random;
    this.store = new ObjectStore(opts.historyLimit ?? 1000);
    this.objects = new ObjectService(
      this.store,
      this.registry,
      opts.now ?? (() => new Date()),
      random,
    );
    this.watches = new WatchManager(this.store, {
      bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 1000,
      defaultTimeoutMs: opts.watchTimeoutMs ?? 30 * 60_000,
    });
    const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    this.faults = new FaultController(
      {
        setDown: (down) => (down ? this.stopListening() : this.listen()),
        closeWatches: () => this.watches.closeAll(),
        closeConnections: () => this.connections.destroyAll(),
      },
      random,
      sleep,
    );
    this.certificate =
      opts.tls === undefined || opts.tls === true
        ? selfSignedCertificate()
        : opts.tls === false
          ? undefined
          : opts.tls;
    // The token controller: ServiceAccount token Secrets filled, their tokens authenticated.
    const tokens = new ServiceAccountTokens(this.store, this.objects, this.registry, this.caData);
    this.users.delegateTo(tokens);
    const listener = requestListener({
      registry: this.registry,
      users: this.users,
      faults: this.faults,
      requests: this.requests,
      objects: this.objects,
      store: this.store,
      watches: this.watches,
      address: () => `${this.host}:${this.boundPort}`,
    });
    this.server =
      this.certificate === undefined
        ? createServer(listener)
        : createTlsServer({ cert: this.certificate.cert, key: this.certificate.key }, listener);
    this.connections = new Connections(this.server, this.certificate !== undefined, () => {
      this.requests.recordConnection();
    });
    for (const ns of DEFAULT_NAMESPACES) this.ensureNamespace(ns);
  }

  /** Starts a cluster and resolves once it is listening. */
  static async start(opts: SimClusterOptions): Promise<SimCluster> {
    const cluster = new SimCluster(opts);
    await cluster.listen();
    return cluster;
  }

  /** The port the cluster listens on (kept across down/up). */
  get port(): number {
    return this.boundPort;
  }

  /** Base URL, e.g. http://127.0.0.1:6443 (https:// with TLS). */
  get url(): string {
    return `${this.certificate === undefined ? 'http' : 'https'}://${this.host}:${this.boundPort}`;
  }

  /** The TLS certificate clients must trust (base64 PEM), or undefined for plain HTTP. */
  get caData(): string | undefined {
    return this.certificate?.caData;
  }

  /** Adds (or replaces the rules of) a user; returns its bearer token. */
  addUser(name: string, rules: readonly AccessRule[], token?: string): string {
    return this.users.add(name, rules, token);
  }

  /** The bearer token of a user; throws for an unknown user. */
  tokenFor(user: string): string {
    const token = this.users.tokenFor(user);
    if (token === undefined) throw new Error(`kube-sim: cluster ${this.name} has no user ${user}`);
    return token;
  }

  /** A single-cluster kubeconfig for `user` (default admin), trusting the cluster's CA. */
  kubeconfig(user = 'admin'): string {
    return renderKubeconfig([
      {
        cluster: this.name,
        server: this.url,
        user,
        token: this.tokenFor(user),
        caData: this.caData,
      },
    ]);
  }

  /** Creates a namespace if it does not exist; returns it. */
  ensureNamespace(name: string): SimObject {
    const existing = this.get('v1', 'Namespace', '', name);
    if (existing !== undefined) return existing;
    return this.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }

  /**
   * Creates or replaces an object (status included, even with a status subresource). A
   * resourceVersion in metadata is a precondition. Applying a CRD registers its resources.
   * Throws a SimError (with `.status`, a Status body) on NotFound namespace, Invalid, Conflict.
   */
  apply(obj: SimObject): SimObject {
    const type = this.typeOf(
      typeof obj.apiVersion === 'string' ? obj.apiVersion : '',
      typeof obj.kind === 'string' ? obj.kind : '',
    );
    const ns = type.namespaced ? metaString(obj, 'namespace') : '';
    if (type.namespaced && ns === '')
      throw badRequest(`${type.kind} ${metaString(obj, 'name')}: metadata.namespace is required`);
    const name = metaString(obj, 'name');
    const exists = name !== '' && this.store.get(groupResource(type), ns, name) !== undefined;
    const write = { type, body: obj, namespace: ns, opts: { fromCode: true } };
    const result = exists ? this.objects.update(write, name) : this.objects.create(write);
    return result.object;
  }

  /** The object, or undefined when absent. */
  get(apiVersion: string, kind: string, namespace: string, name: string): SimObject | undefined {
    const type = this.typeOf(apiVersion, kind);
    return this.store.get(groupResource(type), type.namespaced ? namespace : '', name) === undefined
      ? undefined
      : this.objects.get(type, namespace, name);
  }

  /** Objects of a kind, in one namespace or all ('' or omitted). */
  list(apiVersion: string, kind: string, namespace = ''): SimObject[] {
    return this.objects.list(this.typeOf(apiVersion, kind), namespace);
  }

  /** Deletes an object (a CRD also drops its resources; a namespace its contents). False when absent. */
  delete(apiVersion: string, kind: string, namespace: string, name: string): boolean {
    if (this.get(apiVersion, kind, namespace, name) === undefined) return false;
    this.objects.delete(this.typeOf(apiVersion, kind), namespace, name);
    return true;
  }

  /** Forgets watch history so watches from any older resourceVersion get 410 Expired. */
  compact(): void {
    this.store.compact();
  }

  /** The latest resourceVersion of the cluster. */
  resourceVersion(): string {
    return String(this.store.currentRv());
  }

  /** Number of watch streams currently open. */
  openWatches(): number {
    return this.watches.openCount();
  }

  /** Client connections open now: idle keep-alive ones and, with TLS, handshaking ones too. */
  openConnections(): number {
    return this.connections.open;
  }

  /** Stops the listener, ends watches and open connections, releases hung requests. */
  async close(): Promise<void> {
    await this.faults.clear('hang');
    await this.stopListening();
  }

  private typeOf(apiVersion: string, kind: string): ResourceType {
    const type = this.registry.byKind(apiVersion, kind);
    if (type === undefined) {
      throw new SimError(
        failure(404, 'NotFound', `no matches for kind "${kind}" in version "${apiVersion}"`),
      );
    }
    return type;
  }

  private listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      const onError = (err: Error): void => {
        reject(err);
      };
      this.server.once('error', onError);
      this.server.listen(this.boundPort, this.host, () => {
        this.server.off('error', onError);
        this.boundPort = (this.server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  // Resolves once the listener is closed: every connection is destroyed at once, so the close
  // waits for none of them (a handshaking or idle one would hold it open for minutes).
  private stopListening(): Promise<void> {
    if (!this.server.listening) return Promise.resolve();
    return new Promise((resolve) => {
      this.watches.closeAll();
      this.server.close(() => {
        resolve();
      });
      this.connections.destroyAll();
    });
  }
}
