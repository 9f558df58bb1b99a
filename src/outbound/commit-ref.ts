/**
 * Which commit a commit-status check reads for a revision. A Kustomization's revision names its
 * commit (`main@sha1:<sha>`, `sha1:<sha>`, or the older `main/<sha>`); a chart version does not,
 * so the check names a ref template such as `v{{revision}}` (a tag). Pure.
 */
import { display } from '../text/text.js';

/** The placeholder a ref template (and an HTTP check's URL) replaces with the revision. */
export const REVISION_PLACEHOLDER = '{{revision}}';

const FLUX_SHA1 = /(?:^|@)sha1:([0-9a-f]{40})$/;
const LEGACY_SHA1 = /^(?:[^\s@]+\/)?([0-9a-f]{40})$/;
const FULL_SHA1 = /^[0-9a-f]{40}$/;

/** The ref (a full sha, a tag or a branch) for `revision`, or a sentence saying why none. */
export function commitRefOf(
  revision: string,
  template: string | undefined,
): { ref: string } | { problem: string } {
  if (template !== undefined) {
    const ref = template.replaceAll(REVISION_PLACEHOLDER, revision);
    return isGitRef(ref)
      ? { ref }
      : { problem: `the ref ${JSON.stringify(display(ref, 80))} is not a valid Git ref` };
  }
  const sha = FLUX_SHA1.exec(revision)?.[1] ?? LEGACY_SHA1.exec(revision)?.[1];
  if (sha !== undefined) return { ref: sha };
  return {
    problem: `revision ${display(revision)} names no Git commit: give the check a ref such as "v${REVISION_PLACEHOLDER}"`,
  };
}

/** Whether `ref` is a full 40-digit commit sha (no lookup needed). */
export function isFullSha(ref: string): boolean {
  return FULL_SHA1.test(ref);
}

/** The ref as messages show it: a sha shortened to 12 digits, anything else as is. */
export function shownRef(ref: string): string {
  return isFullSha(ref) ? ref.slice(0, 12) : display(ref, 80);
}

/**
 * `git check-ref-format` for a name used as a ref (a branch, a tag or `tags/v1`): no control
 * characters, space or `~^:?*[\`, no `..` or `@{`, no component starting with `.` or ending
 * with `.lock`, not starting or ending with `/`, no `//`, no leading `-`, at most 255 characters.
 */
export function isGitRef(ref: string): boolean {
  if (ref === '' || ref.length > 255 || ref === '@' || ref.startsWith('-')) return false;
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(ref) || ref.includes('..') || ref.includes('@{'))
    return false;
  if (ref.endsWith('.')) return false;
  return ref
    .split('/')
    .every((part) => part !== '' && !part.startsWith('.') && !part.endsWith('.lock'));
}
