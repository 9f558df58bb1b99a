/**
 * What every front of one forge shares: its stores, its clock and where it listens. Also the
 * reading of credentials, which both forges accept in several header forms.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { PullStore } from './pulls.js';
import type { RepoStore } from './repos.js';
import type { StatusStore } from './statuses.js';
import type { ForgeKind, Tokens } from './tokens.js';

/** The state of one running forge. */
export interface ForgeState {
  readonly kind: ForgeKind;
  /** Base URL, e.g. http://127.0.0.1:41234 (set once listening). */
  url: string;
  readonly repos: RepoStore;
  readonly pulls: PullStore;
  /** Commit statuses and check runs. */
  readonly statuses: StatusStore;
  readonly tokens: Tokens;
  readonly now: () => number;
  /** Stable numeric ids for user names (the token owners and repository owners). */
  userId(name: string): number;
}

/** The REST base: GitHub Enterprise Server's `/api/v3`, GitLab's `/api/v4`. */
export function apiBase(state: ForgeState): string {
  return `${state.url}/api/${state.kind === 'github' ? 'v3' : 'v4'}`;
}

function basicPassword(value: string): string | undefined {
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  // Both forges ignore the user name when the password is a token (GitHub: any user or
  // x-access-token; GitLab: oauth2 or any non-blank user).
  return colon === 0 ? undefined : decoded.slice(colon + 1);
}

// GitHub: `Authorization: Bearer|token <t>` or Basic; GitLab: `PRIVATE-TOKEN` or `Authorization:
// Bearer <t>`; Git over HTTP: Basic with the token as password.
/** The token a request presents: undefined when none, '' when malformed. */
export function presentedToken(headers: IncomingHttpHeaders): string | undefined {
  const privateToken = headers['private-token'];
  if (typeof privateToken === 'string') return privateToken.trim();
  const auth = headers.authorization;
  if (auth === undefined) return undefined;
  const space = auth.indexOf(' ');
  const scheme = (space < 0 ? auth : auth.slice(0, space)).toLowerCase();
  const value = space < 0 ? '' : auth.slice(space + 1).trim();
  if (scheme === 'bearer' || scheme === 'token') return value;
  if (scheme === 'basic') return basicPassword(value) ?? '';
  return '';
}
