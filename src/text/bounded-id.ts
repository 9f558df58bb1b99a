/**
 * Ids from outside (a token's `jti`, an identity provider's subject) as the Pipeline status can
 * hold them. The CRD bounds these fields (an approval's or halt's `jti` at 256 characters, an
 * approval's `principal` at 512), and an API server refuses a whole status write with one field
 * too long: an identity provider's long ids would make a valid approval fail. An id within the
 * bound is kept as it is; a longer one is replaced by `sha256:` and its digest, which is as
 * distinct, so a replay of the same token and a second person are still told apart.
 */
import { createHash } from 'node:crypto';

/** The CRD's bound on a recorded credential id (`jti`). */
export const MAX_RECORDED_JTI = 256;
/** The CRD's bound on an approval record's principal. */
export const MAX_RECORDED_PRINCIPAL = 512;

/** `id` itself when at most `max` characters, else `sha256:<hex digest of id>`. */
export function boundedId(id: string, max: number): string {
  return id.length <= max ? id : `sha256:${createHash('sha256').update(id).digest('hex')}`;
}

/** A credential id as recorded in the status. */
export function recordedJti(jti: string): string {
  return boundedId(jti, MAX_RECORDED_JTI);
}
