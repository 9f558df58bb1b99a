/**
 * The credentials each forge expects over Git HTTP, in the form isomorphic-git's `onAuth`
 * returns, so tests and the demo authenticate the way the gateway will.
 */
import type { GitAuth } from 'isomorphic-git';
import type { ForgeKind } from './tokens.js';

/** GitHub: `x-access-token` + token; GitLab: `oauth2` + token (both forges' documented forms). */
export function gitAuth(kind: ForgeKind, token: string): GitAuth {
  return { username: kind === 'github' ? 'x-access-token' : 'oauth2', password: token };
}
