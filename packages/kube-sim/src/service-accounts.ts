/**
 * Legacy ServiceAccount tokens, as kube-controller-manager's token controller and the API
 * server's legacy token authenticator handle them. A `kubernetes.io/service-account-token`
 * Secret annotated `kubernetes.io/service-account.name` gets `data.token` (a JWT with the
 * upstream claims, signed with a per-cluster key), `data.namespace`, `data.ca.crt` (the
 * cluster's CA; none over plain HTTP, as upstream without a root CA) and the
 * `kubernetes.io/service-account.uid` annotation, in a write of its own right after it is
 * stored. A token Secret whose ServiceAccount does not exist (or has another uid) is deleted,
 * and so are a deleted ServiceAccount's token Secrets. A token authenticates while its Secret
 * still holds it and its ServiceAccount exists, as `system:serviceaccount:<ns>:<name>`; what
 * it may do is decided per request from the stored RBAC objects (rbac.ts).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isRecord, metaOf, metaString, sameObject } from './meta.js';
import type { ObjectService } from './objects.js';
import { rbacAllows } from './rbac.js';
import type { ResourceRequest } from './request-info.js';
import type { Registry, ResourceType, SimObject } from './resources.js';
import type { ObjectStore, StoreEvent } from './store.js';

const TOKEN_TYPE = 'kubernetes.io/service-account-token';
const NAME_ANNOTATION = 'kubernetes.io/service-account.name';
const UID_ANNOTATION = 'kubernetes.io/service-account.uid';
const SECRETS = 'secrets.';
const ACCOUNTS = 'serviceaccounts.';
const ISSUER = 'kubernetes/serviceaccount';
const CLAIM = 'kubernetes.io/serviceaccount/';
/** User names of ServiceAccounts: `system:serviceaccount:<namespace>:<name>`. */
export const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const b64url = (s: string): string => Buffer.from(s, 'utf8').toString('base64url');

function annotationsOf(obj: SimObject): Record<string, unknown> {
  const a = metaOf(obj).annotations;
  return isRecord(a) ? a : {};
}

/** The token controller and authenticator of one cluster. */
export class ServiceAccountTokens {
  private readonly key = randomBytes(32);

  constructor(
    private readonly store: ObjectStore,
    private readonly objects: ObjectService,
    private readonly registry: Registry,
    private readonly caData: string | undefined,
  ) {
    store.react(SECRETS, (e) => {
      this.quietly(() => {
        this.onSecret(e);
      });
    });
    store.react(ACCOUNTS, (e) => {
      if (e.type === 'DELETED')
        this.quietly(() => {
          this.onAccountDeleted(e.object);
        });
    });
  }

  /** The ServiceAccount user a bearer token stands for, or undefined (→ 401). */
  authenticate(token: string): string | undefined {
    const [header = '', body = '', signature = ''] = token.split('.');
    const expected = this.sign(`${header}.${body}`);
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, Buffer.from(expected)))
      return undefined;
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<
      string,
      string
    >;
    const ns = claims[`${CLAIM}namespace`] ?? '';
    const name = claims[`${CLAIM}service-account.name`] ?? '';
    const secret = this.store.get(SECRETS, ns, claims[`${CLAIM}secret.name`] ?? '');
    const account = this.store.get(ACCOUNTS, ns, name);
    const data = secret !== undefined && isRecord(secret.data) ? secret.data : {};
    if (data.token !== b64(token) || account === undefined) return undefined;
    if (metaString(account, 'uid') !== claims[`${CLAIM}service-account.uid`]) return undefined;
    return `${SERVICE_ACCOUNT_PREFIX}${ns}:${name}`;
  }

  /** Whether the ServiceAccount user may make the request, by the RBAC objects stored now. */
  allows(user: string, req: ResourceRequest): boolean {
    const [namespace = '', name = ''] = user.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
    const groups = ['system:serviceaccounts', `system:serviceaccounts:${namespace}`];
    return rbacAllows(
      this.store,
      { user, groups: [...groups, 'system:authenticated'], serviceAccount: { namespace, name } },
      req,
    );
  }

  private sign(input: string): string {
    return createHmac('sha256', this.key).update(input).digest('base64url');
  }

  private mint(account: SimObject, secretName: string): string {
    const ns = metaString(account, 'namespace');
    const name = metaString(account, 'name');
    const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
    const body = b64url(
      JSON.stringify({
        iss: ISSUER,
        [`${CLAIM}namespace`]: ns,
        [`${CLAIM}secret.name`]: secretName,
        [`${CLAIM}service-account.name`]: name,
        [`${CLAIM}service-account.uid`]: metaString(account, 'uid'),
        sub: `${SERVICE_ACCOUNT_PREFIX}${ns}:${name}`,
      }),
    );
    return `${header}.${body}.${this.sign(`${header}.${body}`)}`;
  }

  /** Fills a token Secret, or deletes it when its ServiceAccount is not there. */
  private onSecret(e: StoreEvent): void {
    const secret = e.object;
    if (e.type === 'DELETED' || secret.type !== TOKEN_TYPE) return;
    const annotations = annotationsOf(secret);
    const accountName = annotations[NAME_ANNOTATION];
    if (typeof accountName !== 'string' || accountName === '') return;
    const ns = metaString(secret, 'namespace');
    const account = this.store.get(ACCOUNTS, ns, accountName);
    const uid = annotations[UID_ANNOTATION];
    const wantedUid = account === undefined ? '' : metaString(account, 'uid');
    if (account === undefined || (typeof uid === 'string' && uid !== '' && uid !== wantedUid)) {
      this.objects.delete(this.type('Secret'), ns, metaString(secret, 'name'));
      return;
    }
    const data: Record<string, unknown> = isRecord(secret.data) ? { ...secret.data } : {};
    if (typeof data.token !== 'string' || data.token === '')
      data.token = b64(this.mint(account, metaString(secret, 'name')));
    if (this.caData !== undefined) data['ca.crt'] = this.caData;
    data.namespace = b64(ns);
    const metadata = {
      ...metaOf(secret),
      annotations: { ...annotations, [UID_ANNOTATION]: wantedUid },
    };
    const next = { ...secret, metadata, data };
    if (sameObject(next, secret)) return;
    this.objects.patched(this.type('Secret'), secret, next, { fromCode: true });
  }

  private onAccountDeleted(account: SimObject): void {
    const ns = metaString(account, 'namespace');
    for (const secret of this.store.list(SECRETS, ns)) {
      const tokenOf = annotationsOf(secret)[NAME_ANNOTATION];
      if (secret.type === TOKEN_TYPE && tokenOf === metaString(account, 'name'))
        this.objects.delete(this.type('Secret'), ns, metaString(secret, 'name'));
    }
  }

  private type(kind: string): ResourceType {
    const type = this.registry.byKind('v1', kind);
    if (type === undefined) throw new Error(`kube-sim: no built-in ${kind}`);
    return type;
  }

  /** A controller's failure never fails the write it reacts to (it would retry, upstream). */
  private quietly(act: () => void): void {
    try {
      act();
    } catch {
      // Nothing to do: the next change of the object is the next chance, as on a resync.
    }
  }
}
