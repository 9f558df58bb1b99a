/**
 * Clean requests of the HMAC doors, each with what its credential should earn: Flux events
 * (X-Signature by a cluster, a bearer JWT bound to a cluster, both, none), the legacy
 * pipeline-controller webhook and weave's legacy approval (the Pipeline's hmac-key). Noise
 * and framing come on top (noise.ts).
 */
import fc from 'fast-check';
import { tokenArb, worst, type Profile, type Validity } from './claims.js';
import { bearerArb, signatureArb, type HeaderCredential } from './credentials.js';
import { AUDIENCE, ISSUER, type DoorContext } from './doors-app.js';
import type { CleanRequest } from './noise.js';

/** The API JWT's rules (docs/api.md, "Bearer JWT"): no jti needed, lifetime bounded. */
export const API_PROFILE: Profile = {
  issuer: ISSUER,
  audience: AUDIENCE,
  requiresJti: false,
  maxAgeSeconds: 86_400,
  toleranceSeconds: 5,
  maxLifetimeSeconds: 86_405,
};

/** A Kubernetes-style name. */
export const dnsName = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,30}[a-z0-9])?$/);

/** JSON text without prototype keys (refused before authentication, so noise sends those). */
export const safeJson = fc
  .jsonValue({ maxDepth: 3 })
  .map((v) => JSON.stringify(v))
  .filter((text) => !/"(__proto__|constructor)"/.test(text));

const noProtoKey = (k: string) => k !== '__proto__' && k !== 'constructor';
/** Not `.` or `..`: a client resolves those dot segments before it sends a path. */
export const notDots = (segment: string) => segment !== '.' && segment !== '..';

/** A schema-valid Flux event; `app` when it names an application kind of its own group. */
export function fluxEvent(): fc.Arbitrary<{ body: Buffer; app: boolean }> {
  const object = fc.record({
    kind: fc.constantFrom('HelmRelease', 'Kustomization', 'GitRepository', 'OCIRepository'),
    name: dnsName,
    namespace: dnsName,
    apiVersion: fc.option(
      fc.constantFrom(
        'helm.toolkit.fluxcd.io/v2',
        'kustomize.toolkit.fluxcd.io/v1',
        'source.toolkit.fluxcd.io/v1',
        'v1',
      ),
      { nil: undefined },
    ),
  });
  const event = fc.record({
    involvedObject: object,
    severity: fc.constantFrom('info', 'error'),
    reason: fc.string({ maxLength: 40 }),
    message: fc.string({ maxLength: 200 }),
    metadata: fc.dictionary(
      fc.string({ maxLength: 20 }).filter(noProtoKey),
      fc.string({ maxLength: 40 }),
      { maxKeys: 4 },
    ),
  });
  const groups: Record<string, string> = {
    HelmRelease: 'helm.toolkit.fluxcd.io',
    Kustomization: 'kustomize.toolkit.fluxcd.io',
  };
  return fc.tuple(event, fc.constantFrom(undefined, 2)).map(([e, indent]) => {
    const { kind, apiVersion } = e.involvedObject;
    const group = groups[kind];
    const app =
      group !== undefined && (apiVersion === undefined || apiVersion.startsWith(`${group}/`));
    const involvedObject = Object.fromEntries(
      Object.entries(e.involvedObject).filter(([, v]) => v !== undefined),
    );
    return { body: Buffer.from(JSON.stringify({ ...e, involvedObject }, null, indent)), app };
  });
}

/** The `sub` of a compact JWT's payload, unverified. */
function subOf(credential: HeaderCredential): unknown {
  const token =
    /[A-Za-z0-9_-]+\.([A-Za-z0-9_-]+)/.exec(credential.headers[0]?.[1] ?? '')?.[1] ?? '';
  try {
    return (JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { sub?: unknown }).sub;
  } catch {
    return undefined;
  }
}

/** Keys of no configured cluster or Pipeline: another cluster's key is a signer sending elsewhere. */
const FOREIGN = [
  Buffer.from('an attacker key'),
  Buffer.from('7152fed34dd6149a7c75a276c510da27cb6f82b1'),
];

/** POST /v1/events/{cluster}: mostly the signer's own cluster, else another or none. */
export function eventRequests(context: DoorContext): fc.Arbitrary<CleanRequest> {
  const names = context.clusters.map((c) => c.name);
  const url = (own: string) =>
    fc.oneof(
      { arbitrary: fc.constant(own), weight: 4 },
      fc.constantFrom(...names, 'mgmt', 'DEV'),
      dnsName,
    );
  const maker = { signer: context.keys.api, attacker: context.keys.attackerRsa };
  const token = (cluster: string) =>
    fc
      .oneof(
        { arbitrary: fc.constant(`flux-${cluster}`), weight: 3 },
        fc.constantFrom(...names.map((n) => `flux-${n}`), 'mallory'),
      )
      .chain((sub) =>
        tokenArb(maker, API_PROFILE, (now) => ({
          iss: ISSUER,
          aud: AUDIENCE,
          sub,
          iat: now,
          exp: now + 300,
        })),
      );
  const parts = fc.constantFrom(...context.clusters).chain((signer) =>
    url(signer.name).chain((cluster) =>
      fc.record({
        signer: fc.constant(signer.name),
        cluster: fc.constant(cluster),
        sign: signatureArb(signer.keys, FOREIGN),
        bearer: bearerArb(token(cluster)),
      }),
    ),
  );
  return fc
    .tuple(parts, fluxEvent(), fc.constantFrom('hmac', 'jwt', 'both', 'none'))
    .map(([p, event, mode]) => {
      const hmac = mode === 'hmac' || mode === 'both' ? p.sign(event.body) : undefined;
      const jwt = mode === 'jwt' || mode === 'both' ? p.bearer : undefined;
      // X-Signature, when sent, is the credential; else the bearer token, bound to the URL's cluster.
      let validity: Validity = 'invalid';
      if (hmac !== undefined && hmac.headers.length > 0)
        validity = p.cluster === p.signer ? hmac.validity : 'invalid';
      else if (jwt !== undefined)
        validity = worst(
          jwt.validity,
          names.includes(p.cluster) && subOf(jwt) === `flux-${p.cluster}` ? 'valid' : 'invalid',
        );
      return {
        method: 'POST',
        path: `/v1/events/${encodeURIComponent(p.cluster)}`,
        headers: [
          ['content-type', 'application/json'],
          ['gotk-component', 'helm-controller'],
          ...(hmac?.headers ?? []),
          ...(jwt?.headers ?? []),
        ],
        body: event.body,
        validity,
        label: `${mode} ${hmac?.label ?? ''} ${jwt?.label ?? ''}`.trim(),
        expected: { status: 202, effect: event.app },
      };
    });
}

/** A Pipeline named in a legacy URL: mostly the one with a key; `keyed` when it is that one. */
function legacyTarget(context: DoorContext) {
  const { namespace, name } = context.pipeline;
  return fc.oneof(
    { arbitrary: fc.constant({ ns: namespace, name, keyed: true }), weight: 4 },
    fc.constantFrom(
      { ns: namespace, name: 'fresh', keyed: false },
      { ns: namespace.toUpperCase(), name, keyed: false },
      { ns: 'other', name, keyed: false },
    ),
    fc.tuple(dnsName, dnsName).map(([ns, n]) => ({ ns, name: n, keyed: false })),
  );
}

/** POST /promotion/{ns}/{name}/{env}: signed with the Pipeline's hmac-key; env and body untrusted. */
export function legacyWebhookRequests(context: DoorContext): fc.Arbitrary<CleanRequest> {
  const env = fc.oneof(
    fc.constantFrom('dev', 'staging', 'prod'),
    fc.string({ minLength: 1, maxLength: 30 }).filter(notDots),
  );
  return fc
    .tuple(legacyTarget(context), env, safeJson, signatureArb([context.legacyKey], FOREIGN))
    .map(([t, e, json, sign]) => {
      const body = Buffer.from(json);
      const credential = sign(body);
      return {
        method: 'POST',
        path: `/promotion/${t.ns}/${t.name}/${encodeURIComponent(e)}`,
        headers: [['content-type', 'application/json'], ...credential.headers],
        body,
        validity: t.keyed ? credential.validity : 'invalid',
        label: credential.label,
        expected: { status: 202, effect: true },
      };
    });
}

/** POST /approval/{ns}/{name}/{env}/{revision}: an HMAC of the empty body with the hmac-key. */
export function legacyApprovalRequests(context: DoorContext): fc.Arbitrary<CleanRequest> {
  const revision = fc.oneof(
    fc.constantFrom('6.6.0', 'v1.2.3'),
    fc.stringMatching(/^[A-Za-z0-9.+-]{1,20}$/).filter(notDots),
  );
  return fc
    .tuple(
      legacyTarget(context),
      fc.constantFrom('dev', 'staging', 'prod'),
      revision,
      signatureArb([context.legacyKey], FOREIGN),
    )
    .map(([t, env, rev, sign]) => {
      const credential = sign(Buffer.alloc(0));
      return {
        method: 'POST',
        path: `/approval/${t.ns}/${t.name}/${env}/${encodeURIComponent(rev)}`,
        headers: credential.headers,
        body: Buffer.alloc(0),
        validity: t.keyed ? credential.validity : 'invalid',
        label: credential.label,
        expected: { status: 202, effect: true },
      };
    });
}
