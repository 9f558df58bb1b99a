/**
 * One authentication hook for every route that needs a caller: each such route names how it
 * authenticates (`config.authenticate`) and which door it is (`config.door`), the hook records
 * the Identity, and the request is refused with the one indistinguishable 401 before its
 * handler runs. The refusal's reason goes to the operator (refusals.ts), never to the caller.
 *
 * Order (the choice): authentication needs the raw body, so it runs at `preValidation` (after
 * parsing). The rate limiter's `preHandler` comes before the refusal here, so a failed
 * authentication still spends the caller IP's budget (credential guessing is throttled) while
 * a valid one is limited per subject; a refusal past the limiter is reported. Both are
 * route-level hooks, appended in registration order (the limiter's onRoute runs first, on the
 * root). Body schemas are validated with `attachValidation`, so an unauthenticated caller
 * never learns the schema.
 */
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  RouteOptions,
} from 'fastify';
import { authenticateBearer, type AuthSettings } from '../auth/authenticate.js';
import type { Identity } from '../auth/identity.js';
import type { Checked } from '../auth/refusal.js';
import { GatewayError } from './http-errors.js';
import type { Door, RefusalReporter } from './refusals.js';

/** How a route turns a request into an Identity, or the refusal saying why not. */
export type Authenticator = (request: FastifyRequest) => Promise<Checked<Identity>>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on every route that needs a caller. */
    authenticate?: Authenticator;
    /** The door a route with `authenticate` is, for the refusals' log lines and metric. */
    door?: Door;
    /** Told when a request of this route failed authentication (metrics). */
    onUnauthenticated?: () => void;
  }
}

// Callback style on purpose: an async hook costs one more promise per request on the hot path.
function identify(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  const authenticate = request.routeOptions.config.authenticate;
  if (authenticate === undefined) {
    done();
    return;
  }
  authenticate(request).then(
    (checked) => {
      if (checked.ok) request.identity = checked.value;
      else request.refusal = checked;
      done();
    },
    (error: unknown) => {
      done(error instanceof Error ? error : new GatewayError('Internal'));
    },
  );
}

function refusing(report: RefusalReporter, door: Door) {
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const config = request.routeOptions.config;
    if (config.authenticate === undefined || request.identity !== undefined) {
      done();
      return;
    }
    config.onUnauthenticated?.();
    if (request.refusal !== undefined) report(request, door, request.refusal);
    done(new GatewayError('Unauthenticated'));
  };
}

/** `hooks` as a list (a route option may hold none, one, or a list). */
function listOf<T>(hooks: T | T[] | undefined): T[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}

/**
 * Gives every route of `scope` that sets `config.authenticate` the two hooks, its refusals
 * going to `report`; routes without it (and routes outside the scope) pay nothing.
 */
export function installAuthentication(scope: FastifyInstance, report: RefusalReporter): void {
  scope.addHook('onRoute', (route: RouteOptions) => {
    if (route.config?.authenticate === undefined) return;
    const { door } = route.config;
    // A programming error, met when the app is built: every door must be named for its metric.
    if (door === undefined) throw new Error(`route ${route.url} authenticates but names no door`);
    route.preValidation = [...listOf(route.preValidation), identify];
    route.preHandler = [...listOf(route.preHandler), refusing(report, door)];
  });
}

/** The caller of an authenticated route (the hook has refused everyone else). */
export function callerOf(request: FastifyRequest): Identity {
  if (request.identity === undefined) throw new GatewayError('Unauthenticated');
  return request.identity;
}

/**
 * The route config of the read API (`GET /v1/pipelines/...`, `GET /v1/trains/...`,
 * `POST /v1/what-if`): the `pipelines-api` door, a bearer JWT checked against `auth`.
 */
export function readApiDoor(auth: AuthSettings): {
  door: Door;
  authenticate: Authenticator;
} {
  return {
    door: 'pipelines-api',
    authenticate: (request) => authenticateBearer(request.headers, auth),
  };
}
