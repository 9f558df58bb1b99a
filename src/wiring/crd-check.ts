/**
 * The start-up check that the installed Pipeline CRD keeps the status the gateway writes: a
 * CRD that prunes the promotion records would let every check promote again, so the gateway
 * refuses to start on one and says which fields and what to install instead.
 */
import { readPipelineSchema } from '../kube/pipeline-crd.js';
import { readSchema } from '../schemas.js';
import { prunedStatusFields } from '../status/kept-fields.js';
import type { Runtime } from './runtime.js';

/** The installed CRD would prune status fields the gateway writes; the message names them. */
export class InstalledCrdError extends Error {
  constructor(readonly lost: readonly string[]) {
    super(
      `the Pipeline CRD installed in the management cluster would prune status fields the gateway writes (${lost.join(', ')}): promotions could not be recorded, so they could repeat. Install this project's CRD (manifests/crd/pipelines.weave.works_pipelines.yaml, a superset of weave-gitops' own) and start again`,
    );
    this.name = 'InstalledCrdError';
  }
}

/**
 * Reads the installed CRD and throws InstalledCrdError when it would prune any status field of
 * schemas/pipeline.schema.json. When the CRD cannot be read (no RBAC to get it, the API down),
 * logs a warning and lets the gateway start: the watch reports an absent CRD in its own words.
 */
export async function checkInstalledCrd(rt: Pick<Runtime, 'management' | 'calls' | 'logger'>) {
  const installed = await readPipelineSchema(rt.management, rt.calls);
  if (!installed.ok) {
    rt.logger.warn(
      { reason: installed.reason },
      `could not check the installed Pipeline CRD (${installed.message}); a CRD that prunes the gateway's status fields would lose its promotion records`,
    );
    return;
  }
  const lost = prunedStatusFields(readSchema('pipeline.schema.json'), installed.schema);
  if (lost.length > 0) throw new InstalledCrdError(lost);
}
