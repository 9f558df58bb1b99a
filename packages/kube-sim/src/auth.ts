/**
 * Bearer-token authentication and a small RBAC-like authorizer. Tokens map to users; each
 * user has rules of {verbs, resources, namespaces}. A subresource needs `plural/sub` (as in
 * RBAC) unless the rule says '*'. The 'admin' user may do everything. Tokens no user holds
 * go to the delegate (the cluster's ServiceAccount tokens), which then also decides what the
 * users it authenticated may do.
 */
import { randomBytes } from 'node:crypto';
import type { ResourceRequest, Verb } from './request-info.js';

/** One permission: every listed verb on every listed resource in every listed namespace. */
export interface AccessRule {
  /** Verbs such as 'get', 'list', 'watch', 'patch', or '*'. */
  readonly verbs: readonly (Verb | '*')[];
  /** 'plural', 'plural.group', 'plural/subresource', 'plural.group/subresource', or '*'. */
  readonly resources: readonly string[];
  /** Namespace names or '*'; '*' also covers cluster-scoped resources. Default ['*']. */
  readonly namespaces?: readonly string[];
}

/** Who else may authenticate a bearer token, and authorizes the users it names. */
export interface TokenDelegate {
  /** The user the token stands for, or undefined. */
  authenticate(token: string): string | undefined;
  /** Whether a user this delegate authenticated may make the request. */
  allows(user: string, req: ResourceRequest): boolean;
}

/** Users and their tokens for one cluster. */
export class Users {
  private delegate: TokenDelegate | undefined;
  private readonly byToken = new Map<string, string>();
  private readonly tokens = new Map<string, string>();
  private readonly rules = new Map<string, readonly AccessRule[]>();

  /** Creates the users store with the default all-powerful 'admin'. */
  constructor() {
    this.add('admin', [{ verbs: ['*'], resources: ['*'], namespaces: ['*'] }]);
  }

  /** Adds or replaces a user; returns its bearer token (kept if the user already had one). */
  add(name: string, rules: readonly AccessRule[], token?: string): string {
    const old = this.tokens.get(name);
    const chosen = token ?? old ?? `sim-${name}-${randomBytes(12).toString('hex')}`;
    if (old !== undefined) this.byToken.delete(old);
    this.tokens.set(name, chosen);
    this.byToken.set(chosen, name);
    this.rules.set(name, rules);
    return chosen;
  }

  /** Hands tokens no user holds to `delegate` (set once, when the cluster is built). */
  delegateTo(delegate: TokenDelegate): void {
    this.delegate = delegate;
  }

  /** The token of a user, or undefined when there is no such user. */
  tokenFor(name: string): string | undefined {
    return this.tokens.get(name);
  }

  /** The user an Authorization header authenticates, or undefined (→ 401). */
  authenticate(header: string | undefined): string | undefined {
    if (header === undefined) return undefined;
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (m === null) return undefined;
    const token = m[1] ?? '';
    return this.byToken.get(token) ?? this.delegate?.authenticate(token);
  }

  /** Whether `user` may perform the resource request. */
  allows(user: string, req: ResourceRequest): boolean {
    const rules = this.rules.get(user);
    if (rules === undefined) return this.delegate?.allows(user, req) ?? false;
    return rules.some((rule) => ruleAllows(rule, req));
  }
}

function ruleAllows(rule: AccessRule, req: ResourceRequest): boolean {
  if (!rule.verbs.includes('*') && !rule.verbs.includes(req.verb)) return false;
  const namespaces = rule.namespaces ?? ['*'];
  if (!namespaces.includes('*') && (req.namespace === '' || !namespaces.includes(req.namespace)))
    return false;
  const names = new Set<string>();
  const plain = req.group === '' ? req.resource : `${req.resource}.${req.group}`;
  const withSub = (base: string): string =>
    req.subresource === '' ? base : `${base}/${req.subresource}`;
  names.add(withSub(req.resource));
  names.add(withSub(plain));
  return rule.resources.some((r) => r === '*' || names.has(r));
}
