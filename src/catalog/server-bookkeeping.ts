/**
 * What the API server keeps on every object for its own bookkeeping and the gateway never reads:
 * `metadata.managedFields` (server-side apply's field owners, one entry per writer; the gateway's
 * own status writes add one) and kubectl's `last-applied-configuration` annotation (a second
 * copy of the whole applied spec). Against a real API server they are often as large as the
 * spec, so the catalog drops them from the Pipelines it holds for the life of the process.
 */

/** kubectl apply's copy of the last applied object. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * Removes, in place, `managedFields` and the last-applied annotation from `metadata` (dropping
 * `annotations` when nothing else is left in it); returns `metadata`. Nothing else is touched.
 */
export function dropServerBookkeeping<M extends Record<string, unknown>>(metadata: M): M {
  Reflect.deleteProperty(metadata, 'managedFields');
  const annotations = metadata.annotations;
  if (typeof annotations === 'object' && annotations !== null && LAST_APPLIED in annotations) {
    Reflect.deleteProperty(annotations, LAST_APPLIED);
    if (Object.keys(annotations).length === 0) Reflect.deleteProperty(metadata, 'annotations');
  }
  return metadata;
}
