/**
 * The Pipeline CRD as installed in the management cluster: the schema the API server prunes
 * Pipeline statuses with (see status/kept-fields.ts for what is checked in it).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { classifyKubeError, type KubeFailure } from './errors.js';
import type { KubeCalls } from './request-options.js';
import { CRD, PIPELINE } from './resources.js';
import { KubeRest, resourcePath } from './rest.js';

/** The installed schema of the Pipeline version the gateway reads and writes, or why not. */
export type InstalledSchema =
  { ok: true; schema: Readonly<Record<string, unknown>> } | ({ ok: false } & KubeFailure);

interface CrdVersion {
  name?: string;
  schema?: { openAPIV3Schema?: Record<string, unknown> };
}

/**
 * One GET of the CRD `pipelines.pipelines.weave.works`, as the API server's JSON. Failures are classified, never thrown; a CRD without that version, or without a
 * schema for it, is NotFound.
 */
export async function readPipelineSchema(
  kubeConfig: KubeConfig,
  calls: KubeCalls,
): Promise<InstalledSchema> {
  const name = `${PIPELINE.plural}.${PIPELINE.group}`;
  try {
    const crd = (await new KubeRest(kubeConfig, calls).get(resourcePath(CRD, undefined, name))) as {
      spec?: { versions?: CrdVersion[] };
    };
    const version = crd.spec?.versions?.find((v) => v.name === PIPELINE.version);
    const schema = version?.schema?.openAPIV3Schema;
    if (schema !== undefined) return { ok: true, schema };
    return {
      ok: false,
      reason: 'NotFound',
      message: `CustomResourceDefinition ${name} has no schema for ${PIPELINE.version}`,
    };
  } catch (err) {
    return { ok: false, ...classifyKubeError(err) };
  }
}
