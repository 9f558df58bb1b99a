/** Hand-written Pipelines and decisions for the promote and status tests. */
import type { EnvironmentDecision } from '../../src/evaluate/decisions.js';
import type { Pipeline, PipelineStatus } from '../../src/pipeline/pipeline-resource.js';

/** A three-environment HelmRelease pipeline (dev -> staging -> prod) with a notification strategy. */
export function samplePipeline(status?: PipelineStatus): Pipeline {
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name: 'podinfo', namespace: 'flux-system', uid: 'uid-1', generation: 3 },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
      promotion: { strategy: { notification: {} } },
      environments: [
        {
          name: 'dev',
          targets: [
            { namespace: 'podinfo' },
            { namespace: 'podinfo', clusterRef: { kind: 'GitopsCluster', name: 'dev-eu' } },
          ],
        },
        {
          name: 'staging',
          targets: [
            {
              namespace: 'podinfo',
              clusterRef: { kind: 'GitopsCluster', name: 'staging', namespace: 'clusters' },
            },
          ],
        },
        {
          name: 'prod',
          targets: [{ namespace: 'podinfo', clusterRef: { kind: 'GitopsCluster', name: 'prod' } }],
          promotion: { manual: true, strategy: { notification: {} } },
        },
      ],
    },
    ...(status === undefined ? {} : { status }),
  };
}

/** A Promote decision for `environment`. */
export function promoteDecision(
  environment: string,
  revision: string,
  attempt = 1,
): EnvironmentDecision {
  return {
    environment,
    outcome: 'Promote',
    revision,
    attempt,
    reason: 'UpstreamReady',
    message: `promote ${revision}`,
  };
}

/** 2026-03-04T05:06:07.890Z in ms: sub-second part included to check second precision. */
export const T0 = Date.UTC(2026, 2, 4, 5, 6, 7, 890);
