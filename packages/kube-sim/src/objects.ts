/**
 * Write semantics of the API server, shared by HTTP handlers and the code API so both behave
 * identically: defaults for server-set metadata, namespace existence, name checks, CRD schema
 * pruning/validation, resourceVersion preconditions, generation bumps, the status subresource,
 * no-op detection, and CRD (un)registration.
 */
import { crdToTypes } from './crd.js';
import { builtinDefaults, checkName, checkSchema, decodeWriteBody } from './write-checks.js';
import {
  asServed,
  isRecord,
  metaOf,
  metaString,
  randomSuffix,
  sameObject,
  specView,
  uuid,
} from './meta.js';
import type { Registry, ResourceType, SimObject } from './resources.js';
import { groupResource } from './resources.js';
import type { StatusCause } from './status-errors.js';
import {
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  notFound,
  SimError,
  failure,
} from './status-errors.js';
import type { ObjectStore } from './store.js';

/** How a write treats fields the schema does not declare (the fieldValidation query param). */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** Options of a write. `fromCode` writes keep status on the main resource and need no resourceVersion. */
export interface WriteOptions {
  subresource?: 'status';
  fieldValidation?: FieldValidation;
  fromCode?: boolean;
  /** dryRun=All: everything a write checks, then nothing stored, no event, no new version. */
  dryRun?: boolean;
}

/** A create or update as asked: the body as sent, and the URL's namespace ('' if none). */
export interface WriteRequest {
  type: ResourceType;
  body: unknown;
  namespace: string;
  opts?: WriteOptions;
}

/** What a write produced: the stored object (as served) and warnings for the Warning header. */
export interface WriteResult {
  object: SimObject;
  warnings: string[];
}

const CRD_GR = groupResource({
  group: 'apiextensions.k8s.io',
  resource: 'customresourcedefinitions',
});
const NS_GR = groupResource({ group: '', resource: 'namespaces' });

/** The write/read semantics of one cluster over its store and registry. */
export class ObjectService {
  constructor(
    private readonly store: ObjectStore,
    private readonly registry: Registry,
    private readonly now: () => Date,
    private readonly random: () => number,
  ) {}

  /** The object as served at `type`'s version, or a 404 SimError. */
  get(type: ResourceType, namespace: string, name: string): SimObject {
    const obj = this.store.get(groupResource(type), type.namespaced ? namespace : '', name);
    if (obj === undefined) throw notFound({ group: type.group, resource: type.resource, name });
    return asServed(type, obj);
  }

  /** Objects of `type` in a namespace ('' = all namespaces), as served. */
  list(type: ResourceType, namespace: string): SimObject[] {
    return this.store
      .list(groupResource(type), type.namespaced ? namespace : '')
      .map((o) => asServed(type, o));
  }

  /** POST semantics. */
  create({ type, body, namespace, opts = {} }: WriteRequest): WriteResult {
    const obj = decodeWriteBody(type, body, namespace);
    const meta = { ...metaOf(obj) };
    const ns = type.namespaced ? namespace || metaString(obj, 'namespace') : '';
    if (type.namespaced) this.requireNamespace(ns);
    let name = metaString(obj, 'name');
    const generateName = metaString(obj, 'generateName');
    if (name === '' && generateName !== '') name = this.generateName(type, ns, generateName);
    checkName(type, name);
    const now = this.now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
    for (const key of [
      'resourceVersion',
      'deletionTimestamp',
      'deletionGracePeriodSeconds',
      'selfLink',
      'managedFields',
    ]) {
      Reflect.deleteProperty(meta, key);
    }
    Object.assign(meta, { name, uid: uuid(this.random), creationTimestamp: now });
    if (type.namespaced) meta.namespace = ns;
    else Reflect.deleteProperty(meta, 'namespace');
    if (type.tracksGeneration) meta.generation = 1;
    else Reflect.deleteProperty(meta, 'generation');
    let candidate: SimObject = { ...obj, metadata: meta };
    if (type.statusSubresource && opts.fromCode !== true && type.resource !== 'namespaces')
      delete candidate.status;
    candidate = builtinDefaults(type, candidate, now);
    const { object, warnings } = checkSchema(type, candidate, opts.fieldValidation);
    if (this.store.get(groupResource(type), ns, name) !== undefined) {
      throw alreadyExists({ group: type.group, resource: type.resource, name });
    }
    if (opts.dryRun === true) return { object: asServed(type, object), warnings };
    if (type.resource === 'customresourcedefinitions' && type.group === 'apiextensions.k8s.io') {
      this.registry.registerCrd(name, crdToTypes(object));
    }
    return { object: asServed(type, this.store.put(groupResource(type), object)), warnings };
  }

  /** PUT semantics on the main resource or the status subresource, for object `name`. */
  update({ type, body, namespace, opts = {} }: WriteRequest, name: string): WriteResult {
    const obj = decodeWriteBody(type, body, namespace);
    if (metaString(obj, 'name') !== '' && metaString(obj, 'name') !== name) {
      throw badRequest(
        `the name of the object (${metaString(obj, 'name')}) does not match the name on the URL (${name})`,
      );
    }
    const existing = this.existing(type, namespace, name);
    const rv = metaString(obj, 'resourceVersion');
    if (rv === '' && !type.builtin && opts.fromCode !== true) {
      const cause: StatusCause = {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: 0x0: must be specified for an update',
        field: 'metadata.resourceVersion',
      };
      throw invalid(type.kind, type.group, name, [cause]);
    }
    if (rv !== '' && rv !== metaString(existing, 'resourceVersion')) {
      throw conflict({ group: type.group, resource: type.resource, name });
    }
    return this.commit(type, existing, obj, opts);
  }

  /** Applies an already-patched full object (see patch.ts) with PATCH's precondition rules. */
  patched(
    type: ResourceType,
    existing: SimObject,
    patchedObj: unknown,
    opts: WriteOptions = {},
  ): WriteResult {
    if (!isRecord(patchedObj))
      throw badRequest('the patch produced something that is not an object');
    const name = metaString(existing, 'name');
    const rv = metaString(patchedObj, 'resourceVersion');
    if (rv !== '' && rv !== metaString(existing, 'resourceVersion')) {
      throw conflict({ group: type.group, resource: type.resource, name });
    }
    return this.commit(type, existing, patchedObj, opts);
  }

  /** The stored object (raw, not re-versioned) or 404. */
  existing(type: ResourceType, namespace: string, name: string): SimObject {
    const obj = this.store.get(groupResource(type), type.namespaced ? namespace : '', name);
    if (obj === undefined) throw notFound({ group: type.group, resource: type.resource, name });
    return obj;
  }

  /** DELETE semantics; preconditions come from DeleteOptions. Returns the final object. */
  delete(
    type: ResourceType,
    namespace: string,
    name: string,
    preconditions: { uid?: string; resourceVersion?: string } = {},
    dryRun = false,
  ): SimObject {
    const existing = this.existing(type, namespace, name);
    const ref = { group: type.group, resource: type.resource, name };
    if (preconditions.uid !== undefined && preconditions.uid !== metaString(existing, 'uid'))
      throw conflict(ref);
    if (
      preconditions.resourceVersion !== undefined &&
      preconditions.resourceVersion !== metaString(existing, 'resourceVersion')
    ) {
      throw conflict(ref);
    }
    if (dryRun) return asServed(type, existing);
    const gr = groupResource(type);
    if (gr === NS_GR) this.deleteNamespaceContents(name);
    if (gr === CRD_GR) this.unregisterCrd(existing);
    const removed = this.store.remove(gr, type.namespaced ? namespace : '', name);
    return asServed(type, removed ?? existing);
  }

  private deleteNamespaceContents(ns: string): void {
    const seen = new Set<string>();
    for (const t of this.registry.all()) {
      const gr = groupResource(t);
      if (!t.namespaced || seen.has(gr)) continue;
      seen.add(gr);
      for (const obj of this.store.list(gr, ns)) this.store.remove(gr, ns, metaString(obj, 'name'));
    }
  }

  private unregisterCrd(crd: SimObject): void {
    const spec = isRecord(crd.spec) ? crd.spec : {};
    const names = isRecord(spec.names) ? spec.names : {};
    this.registry.unregisterCrd(metaString(crd, 'name'));
    this.store.removeAll(
      groupResource({ group: String(spec.group), resource: String(names.plural) }),
    );
  }

  private commit(
    type: ResourceType,
    existing: SimObject,
    incoming: SimObject,
    opts: WriteOptions,
  ): WriteResult {
    const keepMeta = metaOf(existing);
    const inMeta = metaOf(incoming);
    let next: SimObject;
    if (opts.subresource === 'status') {
      // Status writes change only status; metadata and spec stay as stored.
      next = { ...existing };
      if ('status' in incoming) next.status = incoming.status;
      else delete next.status;
    } else {
      const meta: Record<string, unknown> = { ...inMeta };
      for (const key of [
        'uid',
        'creationTimestamp',
        'generation',
        'namespace',
        'name',
        'deletionTimestamp',
        'selfLink',
      ]) {
        if (key in keepMeta) meta[key] = keepMeta[key];
        else Reflect.deleteProperty(meta, key);
      }
      Reflect.deleteProperty(meta, 'managedFields');
      next = { ...incoming, apiVersion: existing.apiVersion, kind: existing.kind, metadata: meta };
      const statusSplit = type.statusSubresource && opts.fromCode !== true;
      if (statusSplit) {
        if ('status' in existing) next.status = existing.status;
        else delete next.status;
      }
      next = builtinDefaults(type, next, metaString(existing, 'creationTimestamp'));
    }
    const { object, warnings } = checkSchema(type, next, opts.fieldValidation);
    const meta: Record<string, unknown> = {
      ...metaOf(object),
      resourceVersion: metaString(existing, 'resourceVersion'),
    };
    if (type.tracksGeneration) {
      const gen = typeof keepMeta.generation === 'number' ? keepMeta.generation : 1;
      const changed =
        specView(existing, type.statusSubresource) !== specView(object, type.statusSubresource);
      meta.generation = changed ? gen + 1 : gen;
    }
    const final: SimObject = { ...object, metadata: meta };
    if (sameObject(final, existing)) return { object: asServed(type, existing), warnings };
    if (opts.dryRun === true) return { object: asServed(type, final), warnings };
    if (groupResource(type) === CRD_GR && opts.subresource !== 'status') {
      this.registry.registerCrd(metaString(existing, 'name'), crdToTypes(final));
    }
    return { object: asServed(type, this.store.put(groupResource(type), final)), warnings };
  }

  private requireNamespace(ns: string): void {
    if (ns === '')
      throw badRequest('the server could not find the requested resource: a namespace is required');
    if (this.store.get(NS_GR, '', ns) === undefined)
      throw notFound({ group: '', resource: 'namespaces', name: ns });
  }

  private generateName(type: ResourceType, ns: string, prefix: string): string {
    for (let i = 0; i < 16; i++) {
      const name = `${prefix}${randomSuffix(this.random)}`;
      if (this.store.get(groupResource(type), ns, name) === undefined) return name;
    }
    throw new SimError(
      failure(500, 'InternalError', 'Internal error occurred: could not generate a unique name'),
    );
  }
}
