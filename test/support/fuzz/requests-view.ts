/**
 * Clean requests of the read doors, each with what its token should earn: the status API (GET
 * /v1/pipelines/{ns}/{name}: 200 for a Pipeline the `pipelines` claim covers, 503 NotEvaluated
 * for one held but not evaluated yet, 404 otherwise) and the web view's pages and live streams
 * (403 for a token that names no Pipeline, 404 for a Pipeline out of scope or absent).
 */
import fc from 'fast-check';
import { tokenArb, type Claims } from './claims.js';
import { bearerArb } from './credentials.js';
import { AUDIENCE, ISSUER, type DoorContext } from './doors-app.js';
import type { CleanRequest } from './noise.js';
import { API_PROFILE, dnsName } from './requests-hmac.js';

/** The Pipelines a read door knows: evaluated ones and, for the API, one held not evaluated. */
export interface Known {
  evaluated: readonly string[];
  held?: string;
}

/** The patterns of a `pipelines` claim as the gateway keeps them (authenticate.ts). */
function scopesOf(claims: Claims): string[] {
  const claim = claims.pipelines;
  if (!Array.isArray(claim) || claim.length > 256) return [];
  return claim.filter((p): p is string => typeof p === 'string' && p.length <= 318);
}

function covers(scopes: readonly string[], id: string): boolean {
  const ns = id.slice(0, id.indexOf('/'));
  return scopes.some((p) => p === '*' || p === `${ns}/*` || p === id);
}

/** A reader's API token with a `pipelines` claim of any shape. */
function readerToken(context: DoorContext, known: Known) {
  const ids = [...known.evaluated, ...(known.held === undefined ? [] : [known.held])];
  const ns = ids[0]?.split('/')[0] ?? 'apps';
  const claim = fc.constantFrom<unknown>(
    ['*'],
    [`${ns}/*`],
    ...ids.map((id) => [id]),
    ['other/*'],
    [],
    `${ns}/*`,
    [42, ids[0]],
    undefined,
  );
  const maker = { signer: context.keys.api, attacker: context.keys.attackerRsa };
  return claim.chain((pipelines) =>
    tokenArb(maker, API_PROFILE, (now) => ({
      iss: ISSUER,
      aud: AUDIENCE,
      sub: 'reader',
      iat: now,
      exp: now + 300,
      ...(pipelines === undefined ? {} : { pipelines }),
    })),
  );
}

/** A Pipeline id a read names: mostly a known one, else another or one that is no name. */
function idArb(known: Known): fc.Arbitrary<string> {
  const ids = [...known.evaluated, ...(known.held === undefined ? [] : [known.held])];
  return fc.oneof(
    { arbitrary: fc.constantFrom(...ids), weight: 4 },
    fc.tuple(dnsName, dnsName).map(([ns, name]) => `${ns}/${name}`),
    fc.constantFrom('Apps/podinfo', 'apps/Podinfo', 'apps/pod_info'),
  );
}

/** GET /v1/pipelines/{ns}/{name} with a reader's token. */
export function statusApiRequests(context: DoorContext, known: Known): fc.Arbitrary<CleanRequest> {
  const credential = readerToken(context, known).chain((t) =>
    bearerArb(fc.constant(t)).map((b) => ({ t, b })),
  );
  return fc.tuple(idArb(known), credential).map(([id, { t, b }]) => {
    const covered = covers(scopesOf(t.claims), id);
    const status = !covered
      ? 404
      : known.evaluated.includes(id)
        ? 200
        : id === known.held
          ? 503
          : 404;
    return {
      method: 'GET',
      path: `/v1/pipelines/${id}`,
      headers: b.headers,
      body: Buffer.alloc(0),
      validity: b.validity,
      label: `read ${b.label}`,
      expected: { status, effect: false },
    };
  });
}

/** The view's pages and streams with a reader's token (docs/ui.md, "Access"). */
export function viewRequests(context: DoorContext, known: Known): fc.Arbitrary<CleanRequest> {
  const credential = readerToken(context, known).chain((t) =>
    bearerArb(fc.constant(t)).map((b) => ({ t, b })),
  );
  const page = fc.oneof(
    fc.constantFrom('/', '/live'),
    fc
      .tuple(fc.constantFrom('/pipelines/', '/live/pipelines/'), idArb(known))
      .map(([prefix, id]) => `${prefix}${id}`),
  );
  return fc.tuple(page, credential).map(([path, { t, b }]) => {
    const scopes = scopesOf(t.claims);
    const id = /pipelines\/(.+)$/.exec(path)?.[1];
    const visible = id === undefined || (covers(scopes, id) && known.evaluated.includes(id));
    const status = scopes.length === 0 ? 403 : visible ? 200 : 404;
    return {
      method: 'GET',
      path,
      headers: [
        ['accept', path.startsWith('/live') ? 'text/event-stream' : 'text/html'],
        ...b.headers,
      ],
      body: Buffer.alloc(0),
      validity: b.validity,
      label: `view ${b.label}`,
      expected: { status, effect: false },
    };
  });
}
