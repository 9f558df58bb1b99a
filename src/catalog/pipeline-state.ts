/**
 * A Pipeline as the gateway holds it between events: a detached observation of the object the
 * watch delivered, keeping what the gateway's readers use and nothing of the server's own
 * bookkeeping. Plain objects, deep-frozen: every reader may share it, none may change it.
 *
 * What is kept, and who reads it:
 * - metadata: name and namespace (identity), uid, resourceVersion (the status write's
 *   precondition), generation (a spec change), labels (shard and fleet-halt selectors) and
 *   annotations other than kubectl's copy of the applied object;
 * - spec whole: the targets the catalog indexes and the policy the evaluator reads
 *   (strategy, approvals, checks, soak, windows, drift, break-glass);
 * - status whole: the promotion records, approvals, healthy-since, halts and drift the
 *   evaluator and the claim read; the target records, conditions and verified history the
 *   status write compares against (an unchanged view is not written); the bounded promotion
 *   history and outbox the view and the notifier read. The API server prunes any field the
 *   CRD's schema does not declare, so nothing else can be there.
 *
 * Dropped: managedFields, creationTimestamp, finalizers, ownerReferences and any other
 * metadata, and the `last-applied-configuration` annotation (a second copy of the spec).
 */
import { deepFreeze } from '../json/frozen-pool.js';
import { jsonEqual } from '../json/json-equal.js';
import type {
  ClusterRef,
  Pipeline,
  PipelineHead,
  PipelineSpec,
  PipelineStatus,
  PipelineTarget,
} from '../pipeline/pipeline-resource.js';

/** The metadata a PipelineState keeps. */
export interface ObservedMetadata {
  name: string;
  namespace: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Readonly<Record<string, string>>;
  annotations?: Readonly<Record<string, string>>;
}

/** A detached, deep-frozen observation of a Pipeline (see the module comment). */
export interface PipelineState extends Pipeline {
  readonly metadata: ObservedMetadata & PipelineHead['metadata'];
}

/** Replaces a string by an equal one (e.g. a shared instance); the identity by default. */
export type Intern = (text: string) => string;

/**
 * Replace a spec target and its `clusterRef` by equal deep-frozen values (e.g. instances shared
 * across Pipelines); by default each copy keeps its own.
 */
export interface TargetSharing {
  clusterRef: (ref: ClusterRef) => ClusterRef;
  target: (target: PipelineTarget) => PipelineTarget;
}

/** What observe() may be given besides the Pipeline. */
export interface ObserveOptions {
  /**
   * The state observed before of the same Pipeline: at the same `metadata.generation` its spec
   * stands (the API server moves the generation on every spec change), so it is not copied.
   */
  previous?: PipelineState | undefined;
  /** Applied to every string of the copy (the catalog shares recurring ones). */
  intern?: Intern | undefined;
  /**
   * Applied to each spec target's `clusterRef`, then to the target (the catalog shares equal
   * ones across Pipelines: a fleet's targets name a few clusters, and namespaces that recur).
   */
  share?: TargetSharing | undefined;
}

/** kubectl apply's copy of the last applied object. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

const same: Intern = (text) => text;
const own: TargetSharing = { clusterRef: (ref) => ref, target: (target) => target };

/**
 * The state of `pipeline`: a new deep-frozen object sharing nothing with `pipeline` (only with
 * `options.previous` and the values `options.share` gives), equal to it on every field kept (see the module comment). Pure: the
 * Pipeline is not changed.
 */
export function observe(pipeline: Pipeline, options: ObserveOptions = {}): PipelineState {
  const intern = options.intern ?? same;
  const { previous } = options;
  const metadata = observeMetadata(pipeline.metadata, intern);
  const sameSpec =
    previous !== undefined &&
    metadata.generation !== undefined &&
    previous.metadata.generation === metadata.generation;
  const spec = sameSpec
    ? previous.spec
    : deepFrozen(shareTargets(copy(pipeline.spec, intern), options.share ?? own));
  const state: PipelineState = {
    apiVersion: pipeline.apiVersion,
    kind: pipeline.kind,
    metadata,
    spec,
  };
  if (pipeline.status !== undefined) {
    const status = copy(pipeline.status, intern);
    shareClusterRefs(status, spec);
    state.status = deepFrozen(status);
  }
  return Object.freeze(state);
}

function observeMetadata(
  metadata: PipelineHead['metadata'],
  intern: Intern,
): PipelineState['metadata'] {
  const { name, namespace, uid, resourceVersion, generation } = metadata;
  const out: PipelineState['metadata'] = { name: intern(name), namespace: intern(namespace) };
  if (uid !== undefined) out.uid = uid;
  if (resourceVersion !== undefined) out.resourceVersion = resourceVersion;
  if (generation !== undefined) out.generation = generation;
  const labels = stringMap(metadata.labels, intern);
  if (labels !== undefined) out.labels = labels;
  const annotations = stringMap(metadata.annotations, intern, LAST_APPLIED);
  if (annotations !== undefined) out.annotations = annotations;
  return Object.freeze(out);
}

/** A frozen copy of a map of strings without `skip`; undefined when nothing is left. */
function stringMap(
  value: unknown,
  intern: Intern,
  skip?: string,
): Readonly<Record<string, string>> | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const out: Record<string, string> = {};
  let any = false;
  for (const [key, field] of Object.entries(value)) {
    if (key === skip || typeof field !== 'string') continue;
    out[key] = intern(field);
    any = true;
  }
  return any ? Object.freeze(out) : undefined;
}

/**
 * A copy of a JSON value, its strings interned. Through JSON text, not field by field: the
 * parser makes each object with room for exactly its fields, where one built up by assignment
 * keeps spare room (measured: 60 bytes per target less for a status).
 */
function copy<T>(value: T, intern: Intern): T {
  return JSON.parse(JSON.stringify(value), (_key, field: unknown) =>
    typeof field === 'string' ? intern(field) : field,
  ) as T;
}

/**
 * `spec` (a fresh copy) with each target, and its `clusterRef`, replaced by `share`'s equal
 * value. Why: a target parsed is two objects of its own (88 bytes) though a fleet's targets
 * name a few clusters, and, where namespaces are per environment, a few targets.
 */
function shareTargets(spec: PipelineSpec, share: TargetSharing): PipelineSpec {
  for (const env of spec.environments) {
    env.targets.forEach((target, i) => {
      if (target.clusterRef !== undefined) target.clusterRef = share.clusterRef(target.clusterRef);
      env.targets[i] = share.target(target);
    });
  }
  return spec;
}

/**
 * Each target record's `clusterAppRef.clusterRef` replaced, in `status` (a fresh copy), by the
 * spec's equal object for that target: the same value, one object per target instead of two.
 */
function shareClusterRefs(status: PipelineStatus, spec: PipelineSpec): void {
  for (const env of spec.environments) {
    const records = status.environments?.[env.name]?.targets ?? [];
    records.forEach((record, i) => {
      const ref = env.targets[i]?.clusterRef;
      const held = record.clusterAppRef.clusterRef;
      if (ref !== undefined && held !== undefined && jsonEqual(ref, held))
        record.clusterAppRef.clusterRef = ref;
    });
  }
}

function deepFrozen<T>(value: T): T {
  deepFreeze(value);
  return value;
}
