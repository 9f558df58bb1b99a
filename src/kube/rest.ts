/**
 * The gateway's Kubernetes REST calls: a handful of typed paths over http-call.ts, with
 * client-node's KubeConfig for nothing but the cluster's URL, credentials and TLS options.
 * Why not client-node's generated APIs: the gateway makes a dozen kinds of call, and the APIs
 * brought 717 model classes, node-fetch and a middleware chain that three patches worked
 * around (docs/adr/0022-kubernetes-transport.md).
 */
import type { RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { AgentPool } from './agent-pool.js';
import { exchange, type HttpCall } from './http-call.js';
import type { KubeObject } from './ports.js';
import { KubeCalls } from './request-options.js';
import type { ResourceCoordinates } from './resources.js';

/**
 * An API server's answer other than 2xx: its status code and body (a Status object's text,
 * usually). errors.ts classifies it.
 */
export class KubeApiError extends Error {
  constructor(
    readonly code: number,
    readonly body: string,
  ) {
    super(`HTTP ${String(code)}`);
    this.name = 'KubeApiError';
  }
}

/** Query parameters of a call; undefined ones are left out. */
export type Query = Readonly<Record<string, string | number | undefined>>;

/**
 * The path of a custom resource's collection (no `name`), object, or subresource, in
 * `namespace` or cluster-wide (namespace undefined).
 */
export function resourcePath(
  resource: ResourceCoordinates,
  namespace: string | undefined,
  name?: string,
  subresource?: string,
): string {
  const group =
    resource.group === ''
      ? `/api/${resource.version}`
      : `/apis/${resource.group}/${resource.version}`;
  const scope = namespace === undefined ? '' : `/namespaces/${encodeURIComponent(namespace)}`;
  const object = name === undefined ? '' : `/${encodeURIComponent(name)}`;
  return `${group}${scope}/${resource.plural}${object}${subresource === undefined ? '' : `/${subresource}`}`;
}

/** Calls to one cluster, authenticated as its KubeConfig says; see the module comment. */
export class KubeRest {
  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly calls: KubeCalls,
  ) {}

  /** GET, the answer parsed. Rejects with KubeApiError for an answer other than 2xx. */
  async get(path: string, query?: Query): Promise<unknown> {
    return JSON.parse(await this.text('GET', path, query)) as unknown;
  }

  /** POST or PUT of `body` as JSON, the answer parsed; KubeApiError as get's. */
  async send(method: 'POST' | 'PUT', path: string, body: unknown): Promise<unknown> {
    return JSON.parse(await this.text(method, path, undefined, body)) as unknown;
  }

  /** A call's answer as text (2xx only; KubeApiError otherwise). */
  async text(
    method: HttpCall['method'],
    path: string,
    query?: Query,
    body?: unknown,
  ): Promise<string> {
    const call = await this.prepare(method, path, query, body);
    const answer = await exchange(call, this.calls);
    if (answer.status < 200 || answer.status > 299)
      throw new KubeApiError(answer.status, answer.text);
    return answer.text;
  }

  /**
   * One LIST page: its items and what the list says besides them. KubeApiError as get's;
   * malformed JSON is a SyntaxError.
   */
  async listPage(path: string, query: Query): Promise<ListPage> {
    const page = JSON.parse(await this.text('GET', path, query)) as unknown;
    if (typeof page !== 'object' || page === null)
      throw new SyntaxError('LIST answer is not a List');
    const { items, metadata } = page as { items?: unknown; metadata?: unknown };
    return { items: Array.isArray(items) ? (items as KubeObject[]) : [], ...listMeta(metadata) };
  }

  private async prepare(
    method: HttpCall['method'],
    path: string,
    query: Query | undefined,
    body: unknown,
  ): Promise<HttpCall> {
    const server = this.kubeConfig.getCurrentCluster()?.server;
    if (server === undefined) throw new Error('the kubeconfig has no current cluster');
    const url = new URL(server.replace(/\/+$/, '') + path);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    // The KubeConfig's credentials: headers (a bearer token), TLS options on a fresh agent,
    // which the pool swaps for its keep-alive agent of the same options.
    const options: RequestOptions = {};
    await this.kubeConfig.applyToHTTPSOptions(options);
    const headers: Record<string, string> = { accept: 'application/json' };
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      if (value !== undefined)
        headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    }
    if (body !== undefined) headers['content-type'] = 'application/json';
    const agent =
      typeof options.agent === 'object' ? this.calls.pool.swap(options.agent) : undefined;
    return {
      method,
      url,
      headers,
      agent,
      auth: options.auth ?? undefined,
      body: body === undefined ? undefined : JSON.stringify(body),
    };
  }
}

/**
 * Runs `use` with calls to `kubeConfig`'s cluster on a pool of its own, closed when `use` is
 * over (for a command: its idle connections would keep the process up).
 */
export async function withKubeRest<T>(
  kubeConfig: KubeConfig,
  timeoutMs: number,
  use: (rest: KubeRest) => Promise<T>,
): Promise<T> {
  const pool = new AgentPool();
  try {
    return await use(new KubeRest(kubeConfig, new KubeCalls(timeoutMs, pool)));
  } finally {
    pool.clear();
  }
}

/** One LIST page: its items, the continue token (undefined on the last page) and the snapshot's resourceVersion. */
export interface ListPage {
  items: KubeObject[];
  continue?: string;
  resourceVersion?: string;
}

function listMeta(value: unknown): Omit<ListPage, 'items'> {
  const meta: Omit<ListPage, 'items'> = {};
  if (typeof value !== 'object' || value === null) return meta;
  const { continue: token, resourceVersion } = value as Record<string, unknown>;
  if (typeof token === 'string' && token !== '') meta.continue = token;
  if (typeof resourceVersion === 'string') meta.resourceVersion = resourceVersion;
  return meta;
}
