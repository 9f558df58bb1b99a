/**
 * Access tokens: what each token may do, in the forge's own scope words. A token that cannot see
 * a repository gets the forge's "not found" (both forges hide private repositories that way); a
 * token that sees it but lacks the permission for a call gets 403.
 */
import { randomBytes } from 'node:crypto';

/** The two forges the simulator plays. */
export type ForgeKind = 'github' | 'gitlab';

/** What one call needs from the token. */
export type Need =
  | 'repo:read'
  | 'git:read'
  | 'git:write'
  | 'pulls:read'
  | 'pulls:write'
  | 'statuses:read'
  | 'statuses:write'
  | 'checks:read';

const ALL: Need[] = [
  'repo:read',
  'git:read',
  'git:write',
  'pulls:read',
  'pulls:write',
  'statuses:read',
  'statuses:write',
  'checks:read',
];

/**
 * Scope words per forge: GitHub's classic `repo` and fine-grained permissions; GitLab's personal
 * access token scopes. Unknown words grant nothing.
 */
const GRANTS: Record<ForgeKind, Record<string, Need[]>> = {
  github: {
    repo: ALL,
    'contents:read': ['repo:read', 'git:read'],
    'contents:write': ['repo:read', 'git:read', 'git:write'],
    'pull_requests:read': ['repo:read', 'pulls:read'],
    'pull_requests:write': ['repo:read', 'pulls:read', 'pulls:write'],
    'statuses:read': ['repo:read', 'statuses:read'],
    'statuses:write': ['repo:read', 'statuses:read', 'statuses:write'],
    'checks:read': ['repo:read', 'checks:read'],
  },
  gitlab: {
    api: ALL,
    read_api: ['repo:read', 'pulls:read', 'statuses:read', 'checks:read'],
    read_repository: ['git:read'],
    write_repository: ['git:read', 'git:write'],
  },
};

/** Scopes a token gets when `addToken` is given none: everything a promotion needs. */
export const DEFAULT_SCOPES: Record<ForgeKind, string[]> = {
  github: ['repo'],
  gitlab: ['api'],
};

/** One issued token. */
export interface TokenRecord {
  token: string;
  /** The user the token belongs to (the forge user login / username). */
  name: string;
  scopes: string[];
  /** Repositories the token may see; undefined = all. */
  repos?: string[];
  revoked: boolean;
}

function newToken(kind: ForgeKind): string {
  // The real prefixes, so secret scanners and log redaction treat them like real tokens.
  const body = randomBytes(24).toString('base64url').replace(/[-_]/g, 'x');
  return kind === 'github' ? `ghp_${body.slice(0, 36)}` : `glpat-${body.slice(0, 20)}`;
}

/** The tokens of one forge. */
export class Tokens {
  private readonly byToken = new Map<string, TokenRecord>();

  constructor(private readonly kind: ForgeKind) {}

  /** Issues a token for user `name`; `repos` limits which repositories it can see. */
  add(name: string, scopes?: string[], repos?: string[]): string {
    const token = newToken(this.kind);
    const record: TokenRecord = {
      token,
      name,
      scopes: [...(scopes ?? DEFAULT_SCOPES[this.kind])],
      revoked: false,
    };
    if (repos !== undefined) record.repos = [...repos];
    this.byToken.set(token, record);
    return token;
  }

  /** Revokes one token, or every token of a user; returns how many were revoked. */
  revoke(tokenOrName: string): number {
    let n = 0;
    for (const record of this.byToken.values()) {
      if ((record.token === tokenOrName || record.name === tokenOrName) && !record.revoked) {
        record.revoked = true;
        n++;
      }
    }
    return n;
  }

  /** The live token record for `token`, or undefined for an unknown or revoked token. */
  lookup(token: string): TokenRecord | undefined {
    const record = this.byToken.get(token);
    return record === undefined || record.revoked ? undefined : record;
  }

  /** What the token is granted on repository `fullName`. */
  grants(record: TokenRecord, fullName: string): Set<Need> {
    if (record.repos !== undefined && !record.repos.includes(fullName)) return new Set();
    const table = GRANTS[this.kind];
    return new Set(record.scopes.flatMap((s) => table[s] ?? []));
  }
}

/** The verdict on one call: allowed, hidden (answer "not found") or forbidden (403). */
export type Verdict = 'allowed' | 'hidden' | 'forbidden';

/** Decides a call needing `needs` by a token granted `granted` (undefined = anonymous). */
export function decide(granted: Set<Need> | undefined, needs: Need[]): Verdict {
  if (granted === undefined || granted.size === 0) return 'hidden';
  return needs.every((n) => granted.has(n)) ? 'allowed' : 'forbidden';
}
