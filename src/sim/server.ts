/**
 * The HTTP front of one simulated cluster: counts each request, applies injected faults,
 * authenticates and authorizes, then serves discovery, OpenAPI or a resource verb. Every
 * failure is answered with a `kind: Status` body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestCounter } from './accounting.js';
import type { Users } from './auth.js';
import {
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  openApiV3Document,
  openApiV3Index,
  SIM_VERSION,
} from './discovery.js';
import type { FaultController } from './faults.js';
import type { HandlerContext } from './handlers.js';
import { handleResource, sendJson, sendStatus } from './handlers.js';
import type { NonResourceRequest } from './request-info.js';
import { parseRequest } from './request-info.js';
import type { Registry } from './resources.js';
import { failure, forbidden, pathNotFound, SimError, unauthorized } from './status-errors.js';

/** Largest request body accepted (the real server's default is 3 MiB). */
const MAX_BODY = 3 * 1024 * 1024;

/** Everything the front needs from its cluster. */
export interface FrontContext extends HandlerContext {
  registry: Registry;
  users: Users;
  faults: FaultController;
  requests: RequestCounter;
  /** host:port, for /api's serverAddressByClientCIDRs. */
  address(): string;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(
          new SimError(
            failure(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728'),
          ),
        );
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}

const PUBLIC_PATHS = new Set(['/version', '/healthz', '/livez', '/readyz']);

function serveNonResource(ctx: FrontContext, r: NonResourceRequest, res: ServerResponse): void {
  const parts = r.path.split('/').filter((p) => p !== '');
  const path = parts.join('/');
  let body: unknown;
  if (path === 'version') body = SIM_VERSION;
  else if (path === 'healthz' || path === 'livez' || path === 'readyz') {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('ok');
    return;
  } else if (path === 'api') body = apiVersions(ctx.address());
  else if (path === 'apis') body = apiGroupList(ctx.registry);
  else if (parts[0] === 'api' && parts.length === 2)
    body = apiResourceList(ctx.registry, '', parts[1] ?? '');
  else if (parts[0] === 'apis' && parts.length === 2) body = apiGroup(ctx.registry, parts[1] ?? '');
  else if (parts[0] === 'apis' && parts.length === 3)
    body = apiResourceList(ctx.registry, parts[1] ?? '', parts[2] ?? '');
  else if (path === 'openapi/v3') body = openApiV3Index(ctx.registry);
  else if (parts[0] === 'openapi' && parts[1] === 'v3')
    body = openApiV3Document(ctx.registry, parts.slice(2).join('/'));
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
  const raw = await readBody(req);
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
    serveNonResource(ctx, info, res);
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
  handleResource(ctx, type, info, req, res, raw);
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
