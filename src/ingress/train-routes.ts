/**
 * GET /v1/trains/{namespace}/{name}: a release train as this replica last listed it (its members
 * and, per gated environment, the release there: the combination, its digest and state, what it
 * waits for), for bearer JWTs whose `pipelines` claim covers every member. What `approvals sign
 * --train` reads to sign the combination waiting. A train out of scope answers the same 404 as
 * one that does not exist, like a Pipeline.
 */
import type { FastifyPluginCallback } from 'fastify';
import type { Static } from 'typebox';
import { coversPipeline, type AuthSettings } from '../auth/authenticate.js';
import type { Identity } from '../auth/identity.js';
import { memberRef } from '../trains/train-members.js';
import type { PromotionTrain, TrainRelease } from '../trains/train-resource.js';
import type { PipelineParamsSchema } from '../shapes/routes.js';
import { callerOf, readApiDoor } from './authenticated.js';
import { GatewayError } from './http-errors.js';
import { SchemaRefs } from './route-schemas.js';

/** The PromotionTrains this replica knows (its latest listing). */
export interface TrainViewSource {
  /** The train `namespace/name` as last listed, or undefined when none is known. */
  train(namespace: string, name: string): PromotionTrain | undefined;
}

/** What the trains route needs. */
export interface TrainRoutesOptions {
  auth: AuthSettings;
  trains: TrainViewSource;
}

/** The answer: the train's members and its release per gated environment. */
export interface TrainAnswer {
  namespace: string;
  name: string;
  members: string[];
  environments: { name: string; release?: TrainRelease }[];
}

type Params = Static<typeof PipelineParamsSchema>;

/** Registers GET /v1/trains/:namespace/:name; needs installAuthentication on its scope. */
export const trainRoutes: FastifyPluginCallback<TrainRoutesOptions> = (app, options, done) => {
  const { auth, trains } = options;
  app.get<{ Params: Params }>('/v1/trains/:namespace/:name', {
    schema: { params: { $ref: SchemaRefs.pipelineParams } },
    attachValidation: true,
    config: readApiDoor(auth),
    handler: async (request, reply) => {
      const { namespace, name } = request.params;
      const train =
        request.validationError === undefined ? trains.train(namespace, name) : undefined;
      if (train === undefined || !coversTrain(callerOf(request), train))
        throw new GatewayError('NotFound');
      return reply.code(200).send(answerOf(train));
    },
  });
  done();
};

/** Whether `identity` may read every member of `train` (a train with none is read by nobody). */
export function coversTrain(identity: Identity, train: PromotionTrain): boolean {
  const members = train.status?.members ?? [];
  return (
    members.length > 0 &&
    members.every((member) => {
      const ref = memberRef(train.metadata.namespace, member);
      return coversPipeline(identity, ref.namespace, ref.name);
    })
  );
}

function answerOf(train: PromotionTrain): TrainAnswer {
  const status = train.status;
  return {
    namespace: train.metadata.namespace,
    name: train.metadata.name,
    members: [...(status?.members ?? [])],
    environments: (status?.environments ?? []).map((env) => ({
      name: env.name,
      ...(env.release === undefined ? {} : { release: env.release }),
    })),
  };
}
