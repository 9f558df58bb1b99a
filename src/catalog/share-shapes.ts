/**
 * One frozen instance per distinct cluster and app reference across the Pipelines the gateway
 * holds.
 *
 * Why: every target names its cluster (`clusterRef`: {kind, name, namespace}) in the spec, and
 * again inside each status record of that target (`clusterAppRef.clusterRef`); a fleet has few
 * clusters but parsed JSON gives each mention its own copy, about 90 bytes per target at fleet
 * scale; `appRef` recurs in the same way where Pipelines deploy the same app. Only objects held
 * under those field names are shared (records with times or messages are nearly all distinct,
 * and would fill the table for nothing). Larger parts of the spec that Pipelines repeat whole
 * (target lists, environments, the promotion settings) are shared too (shareSpecParts). Shared
 * instances are frozen: a write to one would change every Pipeline holding it, and in strict
 * code it throws instead (nothing in the gateway writes into a held Pipeline).
 */

import { FrozenPool } from '../pipeline/frozen-pool.js';

/** The field names whose objects are shared. */
const SHARED_FIELDS: ReadonlySet<string> = new Set(['clusterRef', 'appRef']);
/** Objects whose JSON is longer than this are left alone. */
const MAX_SHARED_JSON = 256;
/** Spec parts whose JSON is longer than this are left alone (a few dozen targets). */
const MAX_SHARED_PART_JSON = 4096;
/** Distinct references (and spec parts) remembered; past it, the table starts afresh. */
const MAX_TABLE_SIZE = 8192;

type Plain = Record<string, unknown>;

/** A table of shared small objects; the catalog keeps one for the Pipelines it holds. */
export class ShapeTable {
  /**
   * The cluster and app references. Keyed by a hash, not by their JSON: where every app is
   * named apart, 8,192 appRefs' JSON keys cost about 15 bytes per target at 10,000 x 50.
   */
  private readonly refs: FrozenPool;
  /** Spec parts: target lists, environments, promotion. */
  private readonly parts: FrozenPool;

  constructor(maxSize = MAX_TABLE_SIZE) {
    this.refs = new FrozenPool(maxSize, MAX_SHARED_JSON);
    this.parts = new FrozenPool(maxSize, MAX_SHARED_PART_JSON);
  }

  /** Number of distinct references remembered. */
  get size(): number {
    return this.refs.size;
  }

  /**
   * Replaces, in place, every `clusterRef` and `appRef` object inside `value` (at any depth, in
   * objects and arrays) with the table's equal frozen instance; returns `value` itself, which is
   * never replaced. Frozen objects are left as they are.
   */
  share<T>(value: T): T {
    if (typeof value === 'object' && value !== null && !Object.isFrozen(value))
      this.shareFields(value as Plain);
    return value;
  }

  /**
   * Replaces, in place, each environment's `targets` list (after share(): its clusterRefs are
   * shared), then the environments list itself and the Pipeline-wide `promotion`, by the table's
   * equal deep-frozen instances. Why: where apps share their environments' namespaces and
   * clusters (a namespace per environment), thousands of Pipelines list the very same targets
   * and say the same of each environment; each then costs a pointer instead of about 120 bytes
   * per target. Where the environments differ (a namespace per app), the target lists of
   * environments alike (same clusters, names) are still shared. Parts already frozen are left.
   */
  shareSpecParts(spec: {
    environments: { targets: readonly unknown[] }[];
    promotion?: unknown;
  }): void {
    for (const env of spec.environments) {
      if (!Object.isFrozen(env)) env.targets = this.parts.one(env.targets);
    }
    spec.environments = this.parts.one(spec.environments);
    if (spec.promotion !== undefined) spec.promotion = this.parts.one(spec.promotion);
  }

  /**
   * The table's equal deep-frozen instance of a spec-sized value (e.g. a Pipeline's environment
   * names, which most Pipelines share), or `value` itself when it is larger than a spec part.
   */
  readonly part = <T>(value: T): T => this.parts.one(value);

  /** Replaces, in place, each shareable object below `fields` by its shared instance. */
  private shareFields(fields: Plain): void {
    for (const key of Object.keys(fields)) {
      const field = fields[key];
      if (typeof field !== 'object' || field === null || Object.isFrozen(field)) continue;
      if (SHARED_FIELDS.has(key) && isFlat(field as Plain)) fields[key] = this.refs.one(field);
      else this.shareFields(field as Plain);
    }
  }
}

/** Whether every value of `value` is a primitive (a plain reference, not a nested object). */
function isFlat(value: Plain): boolean {
  if (Array.isArray(value)) return false;
  return Object.values(value).every((v) => typeof v !== 'object' || v === null);
}
