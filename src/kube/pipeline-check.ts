/**
 * Pipelines as they arrive from the API server, checked against schemas/pipeline.schema.json
 * (the CRD's own schema) before anything indexes or evaluates them: a cluster whose CRD is
 * older, missing validation, or edited by hand must not crash or mislead the gateway.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { compileSchema } from '../schemas.js';
import { clip } from '../text/text.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';

const API_VERSION = 'pipelines.weave.works/v1alpha1';
const MAX_PROBLEM_LENGTH = 200;

let compiled: ValidateFunction<Pipeline> | undefined;

function validator(): ValidateFunction<Pipeline> {
  compiled ??= compileSchema<Pipeline>('pipeline.schema.json', { allErrors: false, strict: true });
  return compiled;
}

function describe(error: ErrorObject | undefined): string {
  if (error === undefined) return 'does not match the Pipeline schema';
  const path = error.instancePath === '' ? '(object)' : error.instancePath;
  return clip(`${path} ${error.message ?? 'is invalid'}`, MAX_PROBLEM_LENGTH);
}

/** The result of checking one object: the Pipeline, or a one-line, secret-free problem. */
export type PipelineCheck = { ok: true; pipeline: Pipeline } | { ok: false; problem: string };

/**
 * Checks that `object` is a namespaced pipelines.weave.works/v1alpha1 Pipeline whose spec
 * matches the CRD schema. The object is not copied or changed.
 */
export function checkPipeline(object: unknown): PipelineCheck {
  const candidate = object as Partial<Pipeline> | null;
  if (candidate?.apiVersion !== API_VERSION || candidate.kind !== 'Pipeline') {
    return { ok: false, problem: `not a ${API_VERSION} Pipeline` };
  }
  const { namespace, name } = candidate.metadata ?? {};
  if (typeof namespace !== 'string' || namespace === '' || typeof name !== 'string' || name === '')
    return { ok: false, problem: 'metadata.namespace and metadata.name are required' };
  if (typeof candidate.spec !== 'object') return { ok: false, problem: 'spec is required' };
  const validate = validator();
  if (!validate(object)) return { ok: false, problem: describe(validate.errors?.[0]) };
  return { ok: true, pipeline: object };
}

/** checkPipeline() for objects that must be Pipelines (the API server's answer to our own write). */
export function asPipeline(object: unknown): Pipeline {
  const checked = checkPipeline(object);
  if (!checked.ok) throw new TypeError(`expected a Pipeline: ${checked.problem}`);
  return checked.pipeline;
}
