/**
 * The fleet's admin endpoint, on its own port so it can never collide with API paths:
 *   GET    /clusters                               names, URLs, resourceVersion, open watches
 *   GET    /clusters/{c}/requests[?verb=&resource=&group=&namespace=&name=&subresource=]
 *                                                  snapshot, or {count} when filtered
 *   DELETE /clusters/{c}/requests                  reset counters
 *   GET    /clusters/{c}/faults                    {faults, stats}
 *   PUT    /clusters/{c}/faults                    replace all faults with the body (FaultSpec)
 *   PATCH  /clusters/{c}/faults                    add/replace the given kinds
 *   DELETE /clusters/{c}/faults[/{kind}]           clear all or one kind
 *   POST   /clusters/{c}/faults/close-watches      end every open watch -> {closed}
 *   POST   /clusters/{c}/faults/close-connections  drop every open connection -> {closed}
 *   POST   /clusters/{c}/compact                   force watch-history compaction (410 for old RVs)
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { RequestFilter } from './accounting.js';
import type { SimCluster } from './cluster.js';
import type { FaultKind, FaultSpec } from './faults.js';
import { VERBS } from './request-info.js';
import type { Verb } from './request-info.js';

const FAULT_KINDS: readonly FaultKind[] = ['latency', 'errors', 'hang', 'down'];

function send(res: ServerResponse, code: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(code);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text.trim() === '' ? {} : JSON.parse(text);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Checks the outer shape of a FaultSpec body; returns an error message or undefined. */
export function faultSpecProblem(body: unknown): string | undefined {
  if (!isRecord(body)) return 'body must be a JSON object';
  for (const key of Object.keys(body))
    if (!FAULT_KINDS.includes(key as FaultKind)) return `unknown fault kind: ${key}`;
  if (
    body.latency !== undefined &&
    (!isRecord(body.latency) || typeof body.latency.fixedMs !== 'number')
  ) {
    return 'latency needs a numeric fixedMs';
  }
  if (body.errors !== undefined) {
    if (!Array.isArray(body.errors)) return 'errors must be an array';
    for (const e of body.errors) {
      if (!isRecord(e) || typeof e.rate !== 'number' || typeof e.code !== 'number')
        return 'each error needs numeric rate and code';
    }
  }
  if (body.hang !== undefined && !isRecord(body.hang))
    return 'hang must be an object (a request match, {} for all)';
  if (body.down !== undefined && typeof body.down !== 'boolean') return 'down must be a boolean';
  return undefined;
}

function filterOf(q: URLSearchParams): RequestFilter | undefined {
  const filter: RequestFilter = {};
  const verb = q.get('verb');
  if (verb !== null) {
    if (!VERBS.includes(verb as Verb)) throw new Error(`unknown verb ${verb}`);
    filter.verb = verb as Verb;
  }
  for (const key of ['group', 'resource', 'namespace', 'name', 'subresource'] as const) {
    const v = q.get(key);
    if (v !== null) filter[key] = v;
  }
  return Object.keys(filter).length > 0 ? filter : undefined;
}

/** One admin action on one cluster. */
type ClusterAction = (
  cluster: SimCluster,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
) => void | Promise<void>;

async function setFaults(cluster: SimCluster, req: IncomingMessage, res: ServerResponse) {
  const body = await readJson(req);
  const problem = faultSpecProblem(body);
  if (problem !== undefined) {
    send(res, 400, { error: problem });
    return;
  }
  if (req.method === 'PUT') await cluster.faults.clear();
  await cluster.faults.set(body as FaultSpec);
  send(res, 200, { faults: cluster.faults.current() });
}

/** The actions by `METHOD path-below-the-cluster`. */
const ACTIONS: ReadonlyMap<string, ClusterAction> = new Map<string, ClusterAction>([
  [
    'GET requests',
    (cluster, _req, res, url) => {
      const filter = filterOf(url.searchParams);
      const body =
        filter === undefined
          ? cluster.requests.snapshot()
          : { count: cluster.requests.count(filter) };
      send(res, 200, body);
    },
  ],
  [
    'DELETE requests',
    (cluster, _req, res) => {
      cluster.requests.reset();
      send(res, 204);
    },
  ],
  [
    'GET faults',
    (cluster, _req, res) => {
      send(res, 200, { faults: cluster.faults.current(), stats: cluster.faults.stats() });
    },
  ],
  ['PUT faults', setFaults],
  ['PATCH faults', setFaults],
  [
    'DELETE faults',
    async (cluster, _req, res) => {
      await cluster.faults.clear();
      send(res, 204);
    },
  ],
  [
    'POST faults/close-watches',
    (cluster, _req, res) => {
      send(res, 200, { closed: cluster.faults.closeWatches() });
    },
  ],
  [
    'POST faults/close-connections',
    (cluster, _req, res) => {
      send(res, 200, { closed: cluster.faults.closeConnections() });
    },
  ],
  [
    'POST compact',
    (cluster, _req, res) => {
      cluster.compact();
      send(res, 204);
    },
  ],
  ...FAULT_KINDS.map((kind): [string, ClusterAction] => [
    `DELETE faults/${kind}`,
    async (cluster, _req, res) => {
      await cluster.faults.clear(kind);
      send(res, 204);
    },
  ]),
]);

function listClusters(clusters: Map<string, SimCluster>, res: ServerResponse): void {
  send(
    res,
    200,
    [...clusters.values()].map((c) => ({
      name: c.name,
      url: c.url,
      resourceVersion: c.resourceVersion(),
      openWatches: c.openWatches(),
    })),
  );
}

async function route(
  clusters: Map<string, SimCluster>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://admin.invalid');
  const parts = url.pathname.split('/').filter((p) => p !== '');
  const method = req.method ?? 'GET';
  if (parts.length === 1 && parts[0] === 'clusters' && method === 'GET') {
    listClusters(clusters, res);
    return;
  }
  const cluster = parts[0] === 'clusters' ? clusters.get(parts[1] ?? '') : undefined;
  if (cluster === undefined) {
    send(res, 404, { error: 'no such cluster or path' });
    return;
  }
  const action = ACTIONS.get(`${method} ${parts.slice(2).join('/')}`);
  if (action === undefined) {
    send(res, 404, { error: 'no such path' });
    return;
  }
  await action(cluster, req, res, url);
}

/** Starts the admin endpoint for `clusters` and resolves once it listens. */
export function startAdminServer(
  clusters: Map<string, SimCluster>,
  host: string,
  port: number,
): Promise<Server> {
  const server = createServer((req, res) => {
    route(clusters, req, res).catch((err: unknown) => {
      if (!res.headersSent)
        send(res, 400, { error: err instanceof Error ? err.message : String(err) });
      else res.end();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
