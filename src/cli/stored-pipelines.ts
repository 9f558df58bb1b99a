/**
 * The Pipelines as the management cluster's API server stores them, read through the operator's
 * kubeconfig (as kubectl finds and merges it), for the commands that show or judge the fleet from
 * its stored statuses: `status` and `what-if`.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { failureSummary } from '../kube/errors.js';
import { checkPipeline } from '../kube/pipeline-check.js';
import { listAllPages } from '../kube/pipeline-watch.js';
import { resourcePath, type KubeRest } from '../kube/rest.js';
import type { KubeObject } from '../kube/ports.js';
import { PIPELINE } from '../kube/resources.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';
import { UsageError, type CommandIo } from './args.js';
import { loadManagementAccess, SourceError } from './flux-config-source.js';

/** Which Pipelines to read: one by name, a namespace's, or every namespace's. */
export interface PipelineSelection {
  /** Undefined: every namespace. */
  namespace: string | undefined;
  /** With `namespace`: that Pipeline alone. */
  name: string | undefined;
}

/** Each read gives up after this long. */
export const READ_TIMEOUT_MS = 30_000;

/** The kubeconfig as kubectl finds and merges it; a mistake in it is a UsageError (exit 2). */
export function managementKubeConfig(
  path: string | undefined,
  context: string | undefined,
  env: CommandIo['env'],
): KubeConfig {
  try {
    return loadManagementAccess(path, context, env).kubeConfig;
  } catch (error) {
    if (error instanceof SourceError) throw new UsageError(error.message);
    throw error;
  }
}

/** The namespace of the kubeconfig's current context, as kubectl defaults to it. */
export function contextNamespace(config: KubeConfig): string {
  return config.getContextObject(config.getCurrentContext())?.namespace ?? 'default';
}

/**
 * The selected Pipelines that match the CRD's schema (others cannot be judged: the gateway
 * ignores them too); a failed read is an Error naming why, without credentials.
 */
export async function readPipelines(
  rest: KubeRest,
  request: PipelineSelection,
): Promise<Pipeline[]> {
  try {
    if (request.name !== undefined && request.namespace !== undefined) {
      const one = (await rest.get(
        resourcePath(PIPELINE, request.namespace, request.name),
      )) as KubeObject;
      return valid([one]);
    }
    const path = resourcePath(PIPELINE, request.namespace);
    const page = (token: string | undefined) => rest.get(path, { limit: 500, continue: token });
    return valid((await listAllPages(page)).items as KubeObject[]);
  } catch (error) {
    const { message } = failureSummary(error);
    throw new Error(`cannot read Pipelines: ${message}`);
  }
}

function valid(objects: readonly KubeObject[]): Pipeline[] {
  return objects.flatMap((o) => {
    const checked = checkPipeline(o);
    return checked.ok ? [checked.pipeline] : [];
  });
}
