/**
 * The HTTP front of one simulated cluster: counts each request, applies injected faults,
 * authenticates and authorizes, then serves discovery, OpenAPI or a resource verb. Every
 * failure is answered with a `kind: Status` body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from 'sim-kit';
import type { RequestCounter } from './accounting.js';
import type { Users } from './auth.js';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, SIM_VERSION } from './discovery.js';
import type { FaultController } from './faults.js';
import type { HandlerContext } from './handlers.js';
import { handleResource, sendJson, sendStatus } from './handlers.js';
import { serveOpenApi } from './openapi-http.js';
import type { NonResourceRequest } from './request-info.js';
import { parseRequest } from './request-info.js';
import type { Registry } from './resources.js';
import { failure, forbidden, pathNotFound, SimError, unauthorized } from './status-errors.js';

/** Largest request body accepted (the real server's default is 3 MiB). */
const MAX_BODY = 3 * 1024 * 1024;

const tooLarge = (): SimError =>
  new SimError(failure(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728'));

/** Everything the front needs from its cluster. */
export interface FrontContext extends HandlerContext {
  registry: Registry;
  users: Users;
  faults: FaultController;
  requests: RequestCounter;
  /** host:port, for /api's serverAddressByClientCIDRs. */
  address(): string;
}

const PUBLIC_PATHS = new Set(['/version', '/healthz', '/livez', '/readyz']);

/** The discovery document at `parts`, or undefined when there is none. */
function nonResourceBody(ctx: FrontContext, parts: string[]): unknown {
  const path = parts.join('/');
  if (path === 'version') return SIM_VERSION;
  if (path === 'api') return apiVersions(ctx.address());
  if (path === 'apis') return apiGroupList(ctx.registry);
  const [root, first = '', second = ''] = parts;
  if (root === 'api' && parts.length === 2) return apiResourceList(ctx.registry, '', first);
  if (root === 'apis' && parts.length === 2) return apiGroup(ctx.registry, first);
  if (root === 'apis' && parts.length === 3) return apiResourceList(ctx.registry, first, second);
  return undefined;
}

const HEALTH_PATHS = new Set(['healthz', 'livez', 'readyz']);

function serveNonResource(
  ctx: FrontContext,
  r: NonResourceRequest,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const parts = r.path.split('/').filter((p) => p !== '');
  if (parts.length === 1 && HEALTH_PATHS.has(parts[0] ?? '')) {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('ok');
    return;
  }
  if (parts[0] === 'openapi') {
    serveOpenApi(ctx.registry, parts, req, res);
    return;
  }
  const body = nonResourceBody(ctx, parts);
  if (body === undefined) throw pathNotFound();
  sendJson(res, 200, body);
}

async function serve(ctx: FrontContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const info = parseRequest(req.method ?? 'GET', req.url ?? '/');
  if (info.kind === 'resource') {
    const { verb, group, resource, namespace, name, subresource } = info;
    ctx.requests.record({ verb, group, resource, namespace, name, subresource });
  } else {
    ctx.requests.recordNonResource();
  }
  const raw = await readBody(req, MAX_BODY, tooLarge);
  if (info.kind === 'resource') {
    const injected = await ctx.faults.before(info);
    if (injected !== undefined) {
      sendStatus(res, injected);
      return;
    }
  }
  const user = ctx.users.authenticate(req.headers.authorization);
  if (info.kind === 'nonResource') {
    if (user === undefined && !PUBLIC_PATHS.has(info.path)) throw unauthorized();
    serveNonResource(ctx, info, req, res);
    return;
  }
  if (user === undefined) throw unauthorized();
  if (!ctx.users.allows(user, info)) {
    const target = {
      user,
      verb: info.verb,
      group: info.group,
      resource: info.resource,
      name: info.name,
      namespace: info.namespace,
    };
    throw forbidden(
      info.subresource === '' ? target : { ...target, subresource: info.subresource },
    );
  }
  const type = ctx.registry.byResource(info.group, info.version, info.resource);
  if (type === undefined) throw pathNotFound();
  if (!type.namespaced && info.namespace !== '') throw pathNotFound();
  handleResource({ ctx, type, r: info, req, res, raw });
}

/** The request listener of a simulated cluster. */
export function requestListener(
  ctx: FrontContext,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    serve(ctx, req, res).catch((err: unknown) => {
      if (res.headersSent) {
        res.end();
        return;
      }
      if (err instanceof SimError) sendStatus(res, err.status);
      else
        sendStatus(
          res,
          failure(500, 'InternalError', `Internal error occurred: ${String(err)}`, {
            causes: [{ message: String(err) }],
          }),
        );
    });
  };
}
