/**
 * A whole `pipelines.weave.works/v1alpha1` Pipeline, as the CRD in manifests/crd declares it.
 */
import { Type } from 'typebox';
import { OpenObject } from './kit.js';
import { PipelineSpecSchema } from './pipeline-spec.js';
import { PipelineStatusSchema } from './pipeline-status.js';

/** A Pipeline object; the CRD's openAPIV3Schema and schemas/pipeline.schema.json. */
export const PipelineSchema = Type.Object(
  {
    apiVersion: Type.Optional(
      Type.String({
        description:
          'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
      }),
    ),
    kind: Type.Optional(
      Type.String({
        description:
          'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
      }),
    ),
    metadata: Type.Optional(OpenObject()),
    spec: Type.Optional(PipelineSpecSchema),
    status: Type.Optional(PipelineStatusSchema),
  },
  { description: 'Pipeline is the Schema for the pipelines API' },
);
