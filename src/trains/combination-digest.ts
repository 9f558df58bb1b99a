/**
 * The digest that names a train's combination: sha256 over the canonical JSON of the member ->
 * revision map, as `sha256:<64 hex>`. The same map always gives the same digest, on every replica
 * and after every restart, so an approval signed for it binds exactly that combination.
 */
import { createHash } from 'node:crypto';
import type { Combination } from '../evaluate/train-combinations.js';
import { canonicalJson } from '../json/canonical-json.js';

/** `sha256:<hex>` of the canonical JSON of `members`. */
export function combinationDigest(members: Readonly<Record<string, string>>): string {
  return `sha256:${createHash('sha256').update(canonicalJson(members)).digest('hex')}`;
}

/** `members` as a combination named by its digest. */
export function combinationOf(members: Readonly<Record<string, string>>): Combination {
  return { digest: combinationDigest(members), members };
}
