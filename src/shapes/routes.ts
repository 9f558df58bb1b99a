/**
 * The URL parameters the gateway's routes share (schemas/routes.schema.json): cluster, Pipeline and
 * environment names.
 */
import { Type } from 'typebox';
import { Ref } from './kit.js';

/** Route `definitions.clusterParams`. */
export const ClusterParamsSchema = Type.Object({
  cluster: Type.String({ minLength: 1, maxLength: 253 }),
});

/** Route `definitions.pipelineParams`. */
export const PipelineParamsSchema = Type.Object({
  namespace: Ref<typeof NamespaceSchema>('namespace'),
  name: Ref<typeof NameSchema>('name'),
});

/** Route `definitions.environmentParams`. */
export const EnvironmentParamsSchema = Type.Object({
  namespace: Ref<typeof NamespaceSchema>('namespace'),
  name: Ref<typeof NameSchema>('name'),
  env: Type.String({ minLength: 1, maxLength: 253 }),
});

/** Route `definitions.namespace`. */
export const NamespaceSchema = Type.String({ pattern: '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$' });

/** Route `definitions.name`. */
export const NameSchema = Type.String({
  maxLength: 253,
  pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
});

/** Route `definitions.legacyApprovalParams`. */
export const LegacyApprovalParamsSchema = Type.Object({
  namespace: Ref<typeof NamespaceSchema>('namespace'),
  name: Ref<typeof NameSchema>('name'),
  env: Type.String({ minLength: 1, maxLength: 253 }),
  revision: Type.String({ minLength: 1, maxLength: 256 }),
});
