/**
 * The idle part's questions to the scale fleet (scale-fleet-process.ts answers them here):
 * stored HelmReleases to build no-news events from, and Pipeline statuses remembered at the
 * start of the idle window, to show what changed in a Pipeline that was written. Everything
 * goes through kube-sim's code API, which is not counted as requests.
 */
import type { Fleet, SimObject } from 'kube-sim';
import type { IdleFleetRequest, StatusPair } from './scale-types.js';

const HELM_RELEASE = ['helm.toolkit.fluxcd.io/v2', 'HelmRelease'] as const;
const PIPELINE = ['pipelines.weave.works/v1alpha1', 'Pipeline'] as const;
const PIPELINE_NS = 'pipelines';

/** A Pipeline's resourceVersion and status as stored. */
type Stored = NonNullable<StatusPair['before']>;

function stored(object: SimObject | undefined): Stored | undefined {
  if (object === undefined) return undefined;
  const metadata = object.metadata as { resourceVersion?: string } | undefined;
  return { resourceVersion: metadata?.resourceVersion ?? '', status: object.status };
}

/** Answers the idle part's requests against one fleet; keeps the marked statuses. */
export class IdleFleet {
  private marked = new Map<string, Stored>();

  constructor(private readonly fleet: Fleet) {}

  /** The answer to `request` (see IdleFleetRequest). */
  answer(request: IdleFleetRequest): unknown {
    if (request.type === 'objects') return this.objects(request.cluster, request.count);
    if (request.type === 'mark-statuses') return this.mark();
    return request.names.map((name) => this.since(name));
  }

  private objects(cluster: string, count: number): SimObject[] {
    return this.fleet
      .cluster(cluster)
      .list(...HELM_RELEASE)
      .slice(0, count);
  }

  private mark(): number {
    const management = this.fleet.cluster('management');
    this.marked = new Map();
    for (const pipeline of management.list(...PIPELINE, PIPELINE_NS)) {
      const name = (pipeline.metadata as { name?: string } | undefined)?.name ?? '';
      const now = stored(pipeline);
      if (now !== undefined) this.marked.set(name, now);
    }
    return this.marked.size;
  }

  private since(name: string): StatusPair {
    const now = this.fleet.cluster('management').get(...PIPELINE, PIPELINE_NS, name);
    return { name, before: this.marked.get(name), after: stored(now) };
  }
}
