/**
 * A synthetic fleet for the web view's tests and benchmark: Pipelines (dev -> staging -> prod)
 * with verified target records, promotion history and `verified` records, the views the
 * reconciler would keep of them, and a FleetSource over them whose changes the test makes.
 */
import type { EnvironmentDecision } from '../../src/evaluate/decisions.js';
import { pipelineId, type PipelineId } from '../../src/pipeline/id.js';
import type { EnvironmentStatus, Pipeline } from '../../src/pipeline/pipeline-resource.js';
import type { PipelineView } from '../../src/reconcile/view.js';
import type { FleetSource } from '../../src/ui/fleet-rows.js';

/** Fixed times for the synthetic fleet. */
export const UI_T0 = Date.parse('2026-11-20T09:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

/** What one synthetic Pipeline looks like. */
export interface SyntheticOptions {
  namespace: string;
  name: string;
  /** The revision dev runs (staging and prod run `previous`). */
  revision?: string;
  previous?: string;
  /** prod waits for approval of `revision`. */
  waiting?: boolean;
  /** staging's promotion failed for good. */
  failed?: boolean;
  /** dev's target is not ready. */
  unhealthy?: boolean;
  environments?: string[];
}

function env(
  revision: string,
  ready: boolean,
  at: number,
  extra: EnvironmentStatus = {},
): EnvironmentStatus {
  return {
    targets: [
      {
        clusterAppRef: {
          apiVersion: 'helm.toolkit.fluxcd.io/v2',
          kind: 'HelmRelease',
          name: 'app',
        },
        ready,
        revision,
        observedTime: iso(at),
        ...(ready
          ? {}
          : { error: 'UpgradeFailed: Helm upgrade failed: timed out waiting for the condition' }),
      },
    ],
    verified: [
      { revision: '1.0.0', time: iso(at - 86_400_000) },
      { revision, time: iso(at) },
    ],
    ...extra,
  };
}

/** A Pipeline with `options`, its status as the gateway writes it. */
export function syntheticPipeline(options: SyntheticOptions): Pipeline {
  const { namespace, name } = options;
  const revision = options.revision ?? '1.2.0';
  const previous = options.previous ?? '1.1.0';
  const names = options.environments ?? ['dev', 'staging', 'prod'];
  const environments: Record<string, EnvironmentStatus> = {};
  names.forEach((n, i) => {
    const rev = i === 0 ? revision : previous;
    const history = [
      {
        revision: previous,
        startedTime: iso(UI_T0 - 7_200_000),
        attempts: 1,
        succeededTime: iso(UI_T0 - 7_100_000),
      },
    ];
    const extra: EnvironmentStatus = i === 0 ? {} : { history };
    if (i === names.length - 1 && options.waiting === true)
      extra.waitingApproval = { revision, since: iso(UI_T0) };
    environments[n] = env(rev, !(i === 0 && options.unhealthy === true), UI_T0 + i * 60_000, extra);
  });
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { namespace, name, generation: 1, resourceVersion: '1' },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'app' },
      promotion: { strategy: { notification: {} } },
      environments: names.map((n) => ({
        name: n,
        targets: [{ namespace, clusterRef: { kind: 'GitopsCluster' as const, name: n } }],
      })),
    },
    status: { observedGeneration: 1, environments },
  };
}

/** The reconciler's view of a synthetic Pipeline. */
export function syntheticView(pipeline: Pipeline, options: SyntheticOptions): PipelineView {
  const names = pipeline.spec.environments.map((e) => e.name);
  const revision = options.revision ?? '1.2.0';
  const decisions: EnvironmentDecision[] = names.map((n, i) => {
    if (i === 0)
      return { environment: n, outcome: 'Source', reason: 'Ready', message: `${n} is healthy` };
    if (i === names.length - 1 && options.waiting === true)
      return {
        environment: n,
        outcome: 'WaitingApproval',
        revision,
        reason: 'ApprovalRequired',
        message: `${n} needs approval of ${revision}: 0 of 1 approvals`,
        gate: { required: 1, requiredHuman: 1, approvedBy: [], summary: '0 of 1 approvals' },
      };
    if (i === 1 && options.failed === true)
      return {
        environment: n,
        outcome: 'Failed',
        revision,
        reason: 'RetriesExhausted',
        message: 'webhook answered 500 three times',
      };
    return {
      environment: n,
      outcome: 'UpToDate',
      revision,
      reason: 'Deployed',
      message: `${n} runs ${revision}`,
    };
  });
  const targets = Object.fromEntries(
    names.map((n) => [
      n,
      [
        {
          location: { cluster: n, namespace: pipeline.metadata.namespace },
          health: 'Healthy' as const,
          revision,
          reason: 'Ready',
          message: '',
        },
      ],
    ]),
  );
  return {
    namespace: pipeline.metadata.namespace,
    name: pipeline.metadata.name,
    targets,
    decisions,
    evaluatedAt: iso(UI_T0),
  };
}

/** A FleetSource over Pipelines the test sets, telling listeners of each change. */
export class FakeFleetSource implements FleetSource {
  readonly pipelines = new Map<PipelineId, Pipeline>();
  readonly views = new Map<PipelineId, PipelineView>();
  private readonly listeners = new Set<(id: PipelineId) => void>();

  ids(): readonly PipelineId[] {
    return [...this.pipelines.keys()].sort();
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

  /** Sets (or replaces) a synthetic Pipeline and its view, and tells the listeners. */
  put(options: SyntheticOptions): PipelineId {
    const pipeline = syntheticPipeline(options);
    const id = pipelineId(options);
    this.pipelines.set(id, pipeline);
    this.views.set(id, syntheticView(pipeline, options));
    this.tell(id);
    return id;
  }

  remove(id: PipelineId): void {
    this.pipelines.delete(id);
    this.views.delete(id);
    this.tell(id);
  }

  tell(id: PipelineId): void {
    for (const listener of this.listeners) listener(id);
  }
}

/** `count` Pipelines over 20 namespaces, a few waiting, failed and unhealthy. */
export function syntheticFleet(count: number): FakeFleetSource {
  const source = new FakeFleetSource();
  for (let i = 0; i < count; i++) {
    source.put({
      namespace: `team-${String(i % 20).padStart(2, '0')}`,
      name: `app-${String(i).padStart(4, '0')}`,
      revision: `1.${String(i % 7)}.${String(i % 13)}`,
      waiting: i % 10 === 0,
      failed: i % 25 === 0,
      unhealthy: i % 40 === 0,
    });
  }
  return source;
}
