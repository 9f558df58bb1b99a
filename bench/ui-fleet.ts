/**
 * A synthetic fleet for the web view's part of the benchmark: N Pipelines (dev -> staging ->
 * prod) as the gateway's status shows them, with the views its reconciler keeps, some waiting
 * for approval, some failed, some unhealthy, behind the FleetSource the view reads; change()
 * replaces one Pipeline as the Pipeline watch would and tells the view.
 */
import type { FleetSource, Pipeline, PipelineId, PipelineView } from 'promotion-gateway';

type Decision = PipelineView['decisions'][number];

const T0 = Date.parse('2026-11-20T09:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const ENVIRONMENTS = ['dev', 'staging', 'prod'];

function pipelineOf(namespace: string, name: string, revision: string, i: number): Pipeline {
  const environments = Object.fromEntries(
    ENVIRONMENTS.map((env, k) => {
      const rev = k === 0 ? revision : '1.0.0';
      const ready = !(k === 0 && i % 40 === 0);
      const record = {
        clusterAppRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name },
        ready,
        revision: rev,
        observedTime: iso(T0 + k * 60_000),
        ...(ready ? {} : { error: 'UpgradeFailed: Helm upgrade failed: timed out' }),
      };
      const history = [
        { revision: '1.0.0', startedTime: iso(T0), attempts: 1, succeededTime: iso(T0 + 1000) },
      ];
      const waiting =
        k === 2 && i % 10 === 0 ? { waitingApproval: { revision, since: iso(T0) } } : {};
      return [
        env,
        {
          targets: [record],
          verified: [{ revision: rev, time: iso(T0 + k * 60_000) }],
          ...(k === 0 ? {} : { history }),
          ...waiting,
        },
      ];
    }),
  );
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { namespace, name, generation: 1, resourceVersion: String(i + 1) },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name },
      environments: ENVIRONMENTS.map((env) => ({
        name: env,
        targets: [{ namespace, clusterRef: { kind: 'GitopsCluster', name: env } }],
      })),
    },
    status: { observedGeneration: 1, environments },
  };
}

function viewOf(pipeline: Pipeline, revision: string, i: number): PipelineView {
  const { namespace, name } = pipeline.metadata;
  const decisions: Decision[] = ENVIRONMENTS.map((environment, k): Decision => {
    if (k === 0) return { environment, outcome: 'Source', reason: 'Ready', message: 'healthy' };
    if (k === 2 && i % 10 === 0)
      return {
        environment,
        outcome: 'WaitingApproval',
        revision,
        reason: 'ApprovalRequired',
        message: `prod needs approval of ${revision}: 0 of 1 approvals`,
        gate: { required: 1, requiredHuman: 1, approvedBy: [], summary: '0 of 1 approvals' },
      };
    if (k === 1 && i % 25 === 0)
      return {
        environment,
        outcome: 'Failed',
        revision,
        reason: 'RetriesExhausted',
        message: 'failed',
      };
    return { environment, outcome: 'UpToDate', revision, reason: 'Deployed', message: 'runs it' };
  });
  const targets = Object.fromEntries(
    ENVIRONMENTS.map((env) => [
      env,
      [
        {
          location: { cluster: env, namespace },
          health: 'Healthy' as const,
          reason: 'Ready',
          message: '',
        },
      ],
    ]),
  );
  return { namespace, name, targets, decisions, evaluatedAt: iso(T0) };
}

/** A fleet of `count` Pipelines behind a FleetSource. */
export class SyntheticFleet implements FleetSource {
  private readonly pipelines = new Map<PipelineId, Pipeline>();
  private readonly views = new Map<PipelineId, PipelineView>();
  private readonly listeners = new Set<(id: PipelineId) => void>();
  private sorted: PipelineId[] = [];

  constructor(count: number) {
    for (let i = 0; i < count; i++) this.set(i, `1.${String(i % 7)}.${String(i % 13)}`);
    this.sorted = [...this.pipelines.keys()].sort();
  }

  ids(): readonly PipelineId[] {
    return this.sorted;
  }

  pipeline(id: PipelineId): Pipeline | undefined {
    return this.pipelines.get(id);
  }

  environments(id: PipelineId): readonly string[] | undefined {
    return this.pipelines.get(id)?.spec.environments.map((env) => env.name);
  }

  view(id: PipelineId): PipelineView | undefined {
    return this.views.get(id);
  }

  subscribe(listener: (id: PipelineId) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Pipeline `i` now runs `revision` in dev; the view is told. Returns its id. */
  change(i: number, revision: string): PipelineId {
    const id = this.set(i, revision);
    for (const listener of this.listeners) listener(id);
    return id;
  }

  private set(i: number, revision: string): PipelineId {
    const namespace = `team-${String(i % 20).padStart(2, '0')}`;
    const name = `app-${String(i).padStart(5, '0')}`;
    const pipeline = pipelineOf(namespace, name, revision, i);
    const id = `${namespace}/${name}` as PipelineId;
    this.pipelines.set(id, pipeline);
    this.views.set(id, viewOf(pipeline, revision, i));
    return id;
  }
}
