/**
 * An approval bound to a preview: one that carries a `previewDigest` is recorded only while the
 * change its promotion would make still has that digest (the base branch has not moved, the
 * source is the same). Approvals without a digest keep their meaning.
 */
import type { AuthorizationRecord, Pipeline } from '../pipeline/pipeline-resource.js';
import type { Preview } from '../preview/previewer.js';
import type { AuthorizationRefusal } from './answers.js';

/** The previews an authorization is judged on: the change of promoting a revision now. */
export interface PreviewsNow {
  at(
    pipeline: Pipeline,
    environment: string,
    pending: { revision: string; attempt: number },
  ): Promise<Preview>;
}

/**
 * Undefined when `record` carries no digest or the one of the change now; else the refusal
 * (PreviewChanged, naming the digest now so the approver can look again).
 */
export async function previewRefusal(
  previews: PreviewsNow | undefined,
  pipeline: Pipeline,
  environment: string,
  record: AuthorizationRecord,
): Promise<AuthorizationRefusal | undefined> {
  if (record.previewDigest === undefined || previews === undefined) return undefined;
  const now = await previews.at(pipeline, environment, { revision: record.revision, attempt: 1 });
  if (now.digest === record.previewDigest) return undefined;
  return {
    reason: 'PreviewChanged',
    detail: `The change to ${environment} is no longer the one previewed: its digest is now ${now.digest}; preview it again.`,
  };
}
