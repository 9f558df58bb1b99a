/**
 * The read verbs: get, list (label and field selectors, limit/continue) and watch.
 */
import type { ResourceCall } from './handlers.js';
import { sendJson } from './handlers.js';
import { metaString } from './meta.js';
import { apiVersionOf, type SimObject } from './resources.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';
import { toTable, wantsTable } from './table.js';

/** GET of one object (as a Table when asked for one). */
export function getOne({ ctx, type, r, req, res }: ResourceCall): void {
  const obj = ctx.objects.get(type, r.namespace, r.name);
  const resourceVersion = String(ctx.store.currentRv());
  sendJson(res, 200, wantsTable(req) ? toTable(type, [obj], { resourceVersion }) : obj);
}

function paginate(
  items: SimObject[],
  q: URLSearchParams,
): { items: SimObject[]; next: string | undefined; remaining: number } {
  const limit = Number(q.get('limit') ?? '0');
  const token = q.get('continue');
  let start = 0;
  if (token !== null && token !== '') {
    const after = Buffer.from(token, 'base64url').toString('utf8');
    start = items.findIndex(
      (o) => `${metaString(o, 'namespace')}/${metaString(o, 'name')}` > after,
    );
    if (start < 0) start = items.length;
  }
  if (!Number.isInteger(limit) || limit <= 0 || start + limit >= items.length) {
    return { items: items.slice(start), next: undefined, remaining: 0 };
  }
  const page = items.slice(start, start + limit);
  const last = page[page.length - 1];
  const key =
    last === undefined ? '' : `${metaString(last, 'namespace')}/${metaString(last, 'name')}`;
  return {
    items: page,
    next: Buffer.from(key).toString('base64url'),
    remaining: items.length - start - limit,
  };
}

/** The objects of the request's collection that its label and field selectors match. */
export function selected({ ctx, type, r }: ResourceCall): SimObject[] {
  const byLabel = parseLabelSelector(r.query.get('labelSelector'));
  const byField = parseFieldSelector(r.query.get('fieldSelector'));
  return ctx.objects.list(type, r.namespace).filter((o) => byLabel(o) && byField(o));
}

/** LIST: selectors, then limit/continue paging; a Table when asked for one. */
export function list(call: ResourceCall): void {
  const { ctx, type, r, req, res } = call;
  const page = paginate(selected(call), r.query);
  const metadata: Record<string, unknown> = { resourceVersion: String(ctx.store.currentRv()) };
  if (page.next !== undefined) {
    metadata.continue = page.next;
    metadata.remainingItemCount = page.remaining;
  }
  // Built-in lists omit apiVersion/kind on items, as the real server's typed encoders do.
  const items = type.builtin
    ? page.items.map((o) => {
        const rest = { ...o };
        delete rest.apiVersion;
        delete rest.kind;
        return rest;
      })
    : page.items;
  if (wantsTable(req)) {
    sendJson(res, 200, toTable(type, page.items, metadata));
    return;
  }
  sendJson(res, 200, { apiVersion: apiVersionOf(type), kind: type.listKind, metadata, items });
}

/** WATCH: selector-aware events from a resourceVersion (see watch.ts). */
export function watch({ ctx, type, r, res }: ResourceCall): void {
  const byLabel = parseLabelSelector(r.query.get('labelSelector'));
  const byField = parseFieldSelector(r.query.get('fieldSelector'));
  const name = r.name;
  const timeout = r.query.get('timeoutSeconds');
  ctx.watches.serve(res, {
    type,
    namespace: r.namespace,
    matcher: (o) => byLabel(o) && byField(o) && (name === '' || metaString(o, 'name') === name),
    resourceVersion: r.query.get('resourceVersion') ?? '',
    allowBookmarks: r.query.get('allowWatchBookmarks') === 'true',
    sendInitialEvents: r.query.get('sendInitialEvents') === 'true',
    timeoutSeconds: timeout === null ? undefined : Number(timeout),
  });
}
