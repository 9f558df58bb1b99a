/**
 * The stop-the-line doors across Pipelines (docs/api.md, "Halts across Pipelines"):
 *   POST   /v1/halts        `{namespace?, selector, environment?, reason, expiresAt?}` with an
 *                           SSO or CI bearer token; or a signed halt statement
 *                           (`application/jose`, src/auth/halt-statement.ts) that halts one
 *                           Pipeline or a selector's, or lifts a halt by id
 *   DELETE /v1/halts/{id}   lifts the halt from every Pipeline holding it (bearer token)
 * Authentication comes first, as on every door; who may is judged by the halters.
 */
import type { FastifyPluginCallback, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import {
  haltClaimsProblem,
  type HaltStatement,
  type HaltStatementClaims,
} from '../auth/halt-statement.js';
import type { Principals } from '../auth/principals.js';
import { verified, type Checked } from '../auth/refusal.js';
import type { Identity } from '../auth/identity.js';
import type { FleetHalter, FleetResult } from '../halts/fleet-halter.js';
import type { HaltCaller, Halter } from '../halts/halter.js';
import {
  parseSelectorText,
  parseStructured,
  type ParsedSelector,
  type StructuredSelector,
} from '../labels/label-selector.js';
import { jsonBodyOf } from './body.js';
import { GatewayError } from './http-errors.js';
import { parsePipelineId, pipelineRef } from '../pipeline/id.js';
import { callerOf } from './authenticated.js';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from './error-handling.js';
import { bearerCaller, checkValid, haltAnswer, identifyBearer } from './halt-routes.js';
import type { FleetHaltBodySchema } from '../shapes/authorization.js';
import { SchemaRefs } from './route-schemas.js';

/** What the doors across Pipelines need. */
export interface FleetHaltOptions {
  principals: Principals;
  halter: Halter;
  fleet: FleetHalter;
  /** Verifies a halt statement (checkHaltStatement under the configuration). */
  statements: (statement: string, now: number) => Promise<Checked<HaltStatement>>;
  now: () => number;
}

type FleetHaltBody = Static<typeof FleetHaltBodySchema>;

type Scope = Parameters<FastifyPluginCallback>[0];

/** The verified statement of a request, from its authentication to its handler. */
const statements = new WeakMap<FastifyRequest, HaltStatementClaims>();
const ANY_PIPELINE = { namespace: '', name: '' };

/** Registers POST /v1/halts and DELETE /v1/halts/{id}; needs installAuthentication. */
export function registerFleetHalts(app: Scope, options: FleetHaltOptions): void {
  const { principals, fleet, now } = options;
  app.post<{ Body: FleetHaltBody | string }>('/v1/halts', {
    schema: {
      body: {
        content: {
          'application/json': { schema: { $ref: SchemaRefs.fleetHaltBody } },
          'application/jose': { schema: { type: 'string' } },
        },
      },
    },
    attachValidation: true,
    config: { acceptsJose: true, door: 'halt', authenticate: (r) => identify(options, r) },
    handler: async (request, reply) => {
      const claims = statements.get(request);
      if (claims !== undefined) return byStatement(options, request, reply, claims);
      const caller = bearerCaller(request, principals, now);
      checkValid(request);
      const body = jsonBodyOf(request.body as FleetHaltBody | undefined);
      const selector = selectorOf(body.selector, '/selector');
      const { namespace, environment, reason, expiresAt } = body;
      const request_ = { namespace, selector, environment, reason, expiresAt };
      return send(reply, await fleet.halt(caller, withoutUndefined(request_)), 'halt');
    },
  });
  app.delete<{ Params: { id: string } }>('/v1/halts/:id', {
    schema: { params: { $ref: SchemaRefs.fleetHaltParams } },
    attachValidation: true,
    config: {
      door: 'halt',
      authenticate: (r) => identifyBearer(principals, r, now, ANY_PIPELINE),
    },
    handler: async (request, reply) => {
      const caller = bearerCaller(request, principals, now);
      checkValid(request);
      return send(reply, await fleet.lift(caller, request.params.id), 'lift');
    },
  });
}

/** A halt statement (application/jose), or an SSO or CI bearer token. */
async function identify(
  options: FleetHaltOptions,
  request: FastifyRequest,
): Promise<Checked<Identity>> {
  if (typeof request.body !== 'string')
    return identifyBearer(options.principals, request, options.now, ANY_PIPELINE);
  const checked = await options.statements(request.body, options.now());
  if (!checked.ok) return checked;
  statements.set(request, checked.value.claims);
  return verified(checked.value.identity);
}

/** What a verified statement asks for: a halt of one Pipeline or a selector's, or a lift. */
async function byStatement(
  options: FleetHaltOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  claims: HaltStatementClaims,
): Promise<FastifyReply> {
  const principal = callerOf(request).principal;
  if (principal === undefined) throw new GatewayError('Unauthenticated');
  const caller: HaltCaller = {
    principal,
    ciAllowed: () => Promise.resolve(false),
    statement: request.body as string,
  };
  const only = claims.pipeline === undefined ? undefined : parsePipelineId(claims.pipeline);
  if (claims.pipeline !== undefined && only === undefined)
    throw new GatewayError('InvalidBody', 'The statement’s pipeline is not namespace/name.');
  if (claims.action === 'lift')
    return send(reply, await options.fleet.lift(caller, claims.haltId ?? '', only), 'lift');
  const problem = haltClaimsProblem(claims);
  if (problem !== undefined)
    throw new GatewayError('InvalidBody', `Invalid body: the statement’s ${problem}.`);
  const halt = {
    reason: claims.reason ?? '',
    ...(claims.environment === undefined ? {} : { environment: claims.environment }),
    ...(claims.haltExpiresAt === undefined ? {} : { expiresAt: claims.haltExpiresAt }),
  };
  if (only !== undefined) {
    const result = await options.halter.halt(pipelineRef(only), caller, halt);
    const answer = haltAnswer(result);
    const outcome = result.ok && result.repeated === true ? 'held' : 'halted';
    const pipelines = [{ pipeline: only, outcome }];
    const code = outcome === 'held' ? 200 : 201;
    return reply.code(code).send({ ...answer, pipelines, skipped: 0, complete: true });
  }
  const selector = selectorOf(claims.selector ?? '', 'The statement’s selector');
  const namespace = claims.namespace === undefined ? {} : { namespace: claims.namespace };
  return send(reply, await options.fleet.halt(caller, { ...halt, ...namespace, selector }), 'halt');
}

/** The parsed selector, or the registry's InvalidBody naming what is wrong with it. */
function selectorOf(selector: string | StructuredSelector, where: string) {
  const parsed: ParsedSelector =
    typeof selector === 'string' ? parseSelectorText(selector) : parseStructured(selector);
  if (!parsed.ok)
    throw new GatewayError('InvalidBody', `Invalid body: ${where} ${parsed.problem}.`);
  return parsed.selector;
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * 201 (halt) or 200 (lift) when every Pipeline concerned holds the halt (or is lifted); 207
 * with each Pipeline's outcome when some are not (with Retry-After when a retry may help: 1
 * after contention, as Unavailable's after an unavailable API); or the documented error of a
 * refusal, nothing written.
 */
function send(reply: FastifyReply, result: FleetResult, action: 'halt' | 'lift'): FastifyReply {
  if (!result.ok) throw fleetError(result, action);
  const { halt, pipelines, skipped, complete } = result;
  const retryAfter = pipelines.some((p) => p.outcome === 'unavailable')
    ? UNAVAILABLE_RETRY_AFTER_SECONDS
    : pipelines.some((p) => p.outcome === 'contended')
      ? 1
      : undefined;
  if (!complete && retryAfter !== undefined) void reply.header('retry-after', String(retryAfter));
  const code = !complete ? 207 : action === 'halt' ? 201 : 200;
  return reply.code(code).send({ halt, pipelines, skipped, complete });
}

function fleetError(result: FleetResult & { ok: false }, action: 'halt' | 'lift'): GatewayError {
  switch (result.refusal) {
    case 'Expired':
      return new GatewayError('InvalidBody', 'Invalid body: /expiresAt must be in the future.');
    case 'TooMany':
      return new GatewayError('BadRequest', result.detail);
    case 'NotFound':
      return new GatewayError(
        'NotFound',
        action === 'halt'
          ? 'No Pipeline matches the selector (with that environment, in that namespace).'
          : 'No Pipeline holds a halt in force with that id.',
      );
    default:
      return new GatewayError(result.refusal, result.detail);
  }
}
