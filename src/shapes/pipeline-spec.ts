/**
 * The Pipeline `spec`: the application, its ordered environments and their targets.
 */
import { Type } from 'typebox';
import { StringEnum } from './kit.js';
import { EnvironmentPromotionSpecSchema, promotionFields } from './pipeline-promotion.js';

/** Pipeline `spec.appRef`. */
export const AppRefSchema = Type.Object(
  {
    apiVersion: Type.String({ description: 'API version of the referent.' }),
    kind: Type.String({ description: 'Kind of the referent.' }),
    name: Type.String({ description: 'Name of the referent.' }),
  },
  {
    description:
      "AppRef denotes the name and type of the application that's governed by the pipeline.",
  },
);

/** Pipeline `spec.environments[].targets[].clusterRef`. */
export const ClusterRefSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String({ description: 'API version of the referent.' })),
    kind: StringEnum(['GitopsCluster'], { description: 'Kind of the referent.' }),
    name: Type.String({ description: 'Name of the referent.' }),
    namespace: Type.Optional(
      Type.String({
        description:
          'Namespace of the referent, defaults to the namespace of the Kubernetes resource object that contains the reference.',
      }),
    ),
  },
  {
    description:
      "ClusterRef points to the cluster that's targeted by this target. If this field is not set, then the target is assumed to point to a Namespace on the cluster that the Pipeline resources resides on (i.e. a local target).",
  },
);

/** Pipeline `spec.environments[].targets[]`. */
export const PipelineTargetSchema = Type.Object({
  clusterRef: Type.Optional(ClusterRefSchema),
  namespace: Type.String({
    description:
      "Namespace denotes the namespace of this target on the referenced cluster. This is where the app pointed to by the environment's `appRef` is searched.",
  }),
});

/** Pipeline `spec.environments[]`. */
export const PipelineEnvironmentSchema = Type.Object({
  name: Type.String({
    description:
      'Name defines the name of this environment. This is commonly something such as "dev" or "prod".',
  }),
  promotion: Type.Optional(EnvironmentPromotionSpecSchema),
  targets: Type.Array(PipelineTargetSchema, {
    description:
      'Targets is a list of targets that are part of this environment. Each environment should have at least one target.',
  }),
});

/** Pipeline `spec.promotion`. */
export const PipelinePromotionSpecSchema = Type.Object(
  {
    ...promotionFields(),
  },
  {
    description:
      'Promotion defines details about how promotions are carried out between the environments of this pipeline.',
  },
);

/** Pipeline `spec`. */
export const PipelineSpecSchema = Type.Object({
  appRef: AppRefSchema,
  environments: Type.Array(PipelineEnvironmentSchema, {
    description:
      "Environments is a list of environments to which the pipeline's application is supposed to be deployed.",
  }),
  promotion: Type.Optional(PipelinePromotionSpecSchema),
});
