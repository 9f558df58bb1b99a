/**
 * POST /v1/what-if[?at=RFC3339]: the decisions of the Pipelines a bearer JWT's `pipelines` claim
 * covers, under the current policy and under the proposed one in the body
 * (schemas/what-if-policy.schema.json), per environment, with nothing written. A body that does
 * not match its schema is InvalidBody; one whose windows or selectors cannot be used, InvalidPolicy.
 */
import type { FastifyPluginCallback, FastifySchemaValidationError } from 'fastify';
import { coversPipeline, type AuthSettings } from '../auth/authenticate.js';
import type { WhatIfAnswer } from '../evaluation/what-if.js';
import {
  compileWhatIfPolicy,
  type WhatIfPolicy,
  type WhatIfPolicyInput,
} from '../evaluation/what-if-policy.js';
import { clip } from '../text/text.js';
import { isRfc3339, rfc3339 } from '../time/kube-time.js';
import { callerOf, readApiDoor } from './authenticated.js';
import { GatewayError } from './http-errors.js';
import { SchemaRefs, validationMessage } from './route-schemas.js';

/** The fleet what-if (evaluation/fleet-what-if.ts), for the Pipelines `covers` admits, at `now`. */
export type WhatIfSource = (
  policy: WhatIfPolicy,
  covers: (namespace: string, name: string) => boolean,
  now: number,
) => WhatIfAnswer;

/** What the what-if route needs. */
export interface WhatIfRouteOptions {
  auth: AuthSettings;
  whatIf: WhatIfSource;
  now: () => number;
}

/** How far from now `at` may be, either way: a year covers every window's period and soak. */
const MAX_AT_DISTANCE_MS = 366 * 24 * 3600 * 1000;

/** Registers POST /v1/what-if; needs installAuthentication on its scope. */
export const whatIfRoutes: FastifyPluginCallback<WhatIfRouteOptions> = (app, options, done) => {
  const { auth, whatIf, now } = options;
  app.post<{ Body: WhatIfPolicyInput; Querystring: { at?: unknown } }>('/v1/what-if', {
    schema: { body: { $ref: SchemaRefs.whatIfPolicy } },
    attachValidation: true,
    config: readApiDoor(auth),
    handler: async (request, reply) => {
      const identity = callerOf(request);
      const at = instantOf(request.query.at, now());
      if (request.validationError !== undefined) {
        const { validation } = request.validationError as {
          validation?: FastifySchemaValidationError[];
        };
        throw new GatewayError('InvalidBody', validationMessage(validation));
      }
      const compiled = compileWhatIfPolicy(request.body);
      if (!compiled.ok)
        throw new GatewayError('InvalidPolicy', clip(compiled.problems.join('; '), 400));
      const covers = (namespace: string, name: string) => coversPipeline(identity, namespace, name);
      const answer = whatIf(compiled.policy, covers, at);
      return reply.code(200).send({ at: rfc3339(at), ...answer });
    },
  });
  done();
};

/** `?at=` as ms, now when absent; BadRequest when it is no RFC 3339 time within a year of now. */
function instantOf(at: unknown, now: number): number {
  if (at === undefined) return now;
  if (typeof at !== 'string' || !isRfc3339(at))
    throw new GatewayError(
      'BadRequest',
      'at must be one RFC 3339 time, e.g. 2026-12-24T18:00:00Z.',
    );
  const ms = Date.parse(at);
  if (Math.abs(ms - now) > MAX_AT_DISTANCE_MS)
    throw new GatewayError('BadRequest', 'at must be within 366 days of now.');
  return ms;
}
