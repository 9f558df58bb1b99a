/**
 * The check before a promotion resting on approvals bound to a preview: none bound, nothing is
 * previewed; bound, the change is previewed again and the decision re-evaluated on it; a change
 * that cannot be known holds the promotion as 'unknown'.
 */
import { describe, expect, it } from 'vitest';
import type { EnvironmentDecision } from '../../../src/evaluate/decisions.js';
import type { PipelineEvaluation } from '../../../src/evaluation/evaluation-input.js';
import type { Pipeline } from '../../../src/pipeline/pipeline-resource.js';
import type { Preview } from '../../../src/preview/previewer.js';
import { stillApproved, type PreviewsAt } from '../../../src/reconcile/preview-check.js';
import { samplePipeline } from '../../support/pipeline-fixtures.js';

const DIGEST = `sha256:${'1'.repeat(64)}`;
const decision: EnvironmentDecision = {
  environment: 'prod',
  outcome: 'Promote',
  revision: '1.1.0',
  attempt: 1,
  reason: 'Approved',
  message: 'approved',
};

function approved(previewDigest?: string): Pipeline {
  return samplePipeline({
    environments: {
      prod: {
        targets: [],
        approvals: [
          {
            principal: 'alice',
            kind: 'human',
            decision: 'approve',
            revision: '1.1.0',
            time: '2026-01-01T00:00:00Z',
            ...(previewDigest === undefined ? {} : { previewDigest }),
          },
        ],
      },
    },
  });
}

/** Previews whose change is `kind`, counting the calls; an evaluator deciding `outcome`. */
function deps(kind: 'notification' | 'unavailable', outcome: EnvironmentDecision['outcome']) {
  const calls: string[] = [];
  const previews: PreviewsAt = {
    at: (pipeline, environment, pending) => {
      calls.push(`${environment}@${pending.revision}`);
      const change =
        kind === 'unavailable'
          ? { kind, reason: 'Unavailable', message: 'the forge did not answer' }
          : {
              kind,
              event: { type: 'Normal', reason: 'Promote', message: 'm', annotations: {} },
            };
      const { namespace, name } = pipeline.metadata;
      const preview: Preview = {
        pipeline: { namespace, name },
        environment,
        revision: pending.revision,
        moves: [],
        change,
        digest: DIGEST,
        summary: 's',
      };
      return Promise.resolve(preview);
    },
  };
  const evaluator = {
    evaluate: () => ({ decisions: [{ ...decision, outcome }] }) as unknown as PipelineEvaluation,
  };
  return { calls, previews, evaluator, verified: { status: () => undefined } };
}

describe('stillApproved', () => {
  it('previews nothing when no approval of the revision is bound to a digest', async () => {
    const d = deps('notification', 'WaitingApproval');
    expect(await stillApproved(d, approved(), [], decision)).toBe('yes');
    expect(d.calls).toEqual([]);
  });

  it('previews again and follows the re-evaluated decision', async () => {
    const promote = deps('notification', 'Promote');
    expect(await stillApproved(promote, approved(DIGEST), [], decision)).toBe('yes');
    expect(promote.calls).toEqual(['prod@1.1.0']);
    const moved = deps('notification', 'WaitingApproval');
    expect(await stillApproved(moved, approved(DIGEST), [], decision)).toBe('no');
  });

  it('holds the promotion when the change cannot be known now', async () => {
    const d = deps('unavailable', 'Promote');
    expect(await stillApproved(d, approved(DIGEST), [], decision)).toBe('unknown');
  });
});
