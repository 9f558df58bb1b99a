/**
 * What a deployed revision may look like, by the kind of object that reports it. A revision is
 * compared, shown in the Pipeline status and written into Git by the pull-request strategy, so
 * a value no Flux controller would write is refused here and never verified. Pure.
 */
import type { FluxAppKind } from '../pipeline/flux-kinds.js';

/**
 * The two kinds of revision: a HelmRelease's chart version (any apiVersion: v2beta1's
 * lastAppliedRevision is the chart version too) and a Kustomization's source revision.
 */
export type RevisionKind = 'chartVersion' | 'sourceRevision';

/** The kind of revision objects of `kind` report. */
export function revisionKindOf(kind: FluxAppKind['kind']): RevisionKind {
  return kind === 'HelmRelease' ? 'chartVersion' : 'sourceRevision';
}

/**
 * Longest chart version accepted. Helm pushes a chart to an OCI registry under its version as
 * the tag, and OCI tags are at most 128 characters, so no longer version can be pulled by Flux.
 */
export const MAX_CHART_VERSION_LENGTH = 128;

/** Longest source revision accepted: a 120-character ref name beside a SHA-512 digest fits. */
export const MAX_SOURCE_REVISION_LENGTH = 256;

// semver.org's own regular expression for SemVer 2.0.0 (numbered groups dropped). In JavaScript
// `\d` is ASCII only and `$` never matches before a trailing newline.
const SEMVER = new RegExp(
  String.raw`^(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)` +
    String.raw`(?:-(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?` +
    String.raw`(?:\+[0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*)?$`,
);

/**
 * Whether `text` is a SemVer 2.0.0 version, as Helm documents a chart's `version` must be
 * ("A SemVer 2 version", helm.sh/docs/topics/charts): no leading `v`, no partial `1.2`, no
 * surrounding space; prerelease and build metadata allowed; at most 128 characters.
 */
export function isSemVer2(text: string): boolean {
  return text.length <= MAX_CHART_VERSION_LENGTH && SEMVER.test(text);
}

/*
 * The revisions Flux's source-controller writes into an Artifact, which kustomize-controller
 * copies into a Kustomization's status.lastAppliedRevision (Flux RFC-0005, "Artifact Revision
 * format", fluxcd/flux2 rfcs/0005-artifact-revision-and-digest, implemented in Flux v0.40 /
 * source-controller v0.34):
 *   [ <named pointer> "@" ] <algo> ":" <lowercase hex checksum>
 * - GitRepository: `main@sha1:<40>` (fluxcd/pkg git.Commit.String: the ref's last part, so
 *   `feature/x@sha1:...`, `v1.0.0@sha1:...`), a full `refs/...@sha1:...` for `ref.name`, or a
 *   bare `sha1:<40>` for a commit with no branch or tag;
 * - Bucket: `sha256:<64>`, or the algorithm of `--artifact-digest-algo` (sha384, sha512,
 *   blake3);
 * - OCIRepository: `<tag>@sha256:<64>`, or `sha256:<64>` when pinned by digest.
 * Before RFC-0005 (Flux v2's 0.x betas) the separator was `/` and the checksum bare:
 * `main/<40 hex>`, `HEAD/<40 hex>`, `latest/<64 hex>` (OCI), a bare hex checksum (Bucket).
 * Flux v1 had no Kustomization, so wrote none of these.
 *
 * The named pointer is a Git ref or an OCI tag. Git allows more characters in a ref than are
 * accepted here (check-ref-format refuses only space, control characters and ~^:?*[\); this
 * accepts ASCII letters, digits and `._+-@` in `/`-separated components, never `..`, so a
 * branch named with shell metacharacters or non-ASCII letters is refused.
 */
const DIGEST = String.raw`(?:sha1:[0-9a-f]{40}|sha256:[0-9a-f]{64}|sha384:[0-9a-f]{96}|sha512:[0-9a-f]{128}|blake3:[0-9a-f]{64})`;
const COMPONENT = String.raw`[A-Za-z0-9_+-][A-Za-z0-9._+@-]*`;
const POINTER = `${COMPONENT}(?:/${COMPONENT})*`;
const CURRENT_FORM = new RegExp(`^(?:${POINTER}@)?${DIGEST}$`);
const LEGACY_FORM = new RegExp(`^(?:${POINTER}/)?(?:[0-9a-f]{40}|[0-9a-f]{64})$`);

/** Whether `text` is a source revision in one of the forms Flux writes (see above). */
export function isFluxSourceRevision(text: string): boolean {
  return (
    text.length <= MAX_SOURCE_REVISION_LENGTH &&
    !text.includes('..') &&
    (CURRENT_FORM.test(text) || LEGACY_FORM.test(text))
  );
}

/** A reported revision: none, one of its kind, or refused with the words saying why. */
export type CheckedRevision =
  | { state: 'absent' }
  | { state: 'valid'; revision: string }
  | { state: 'invalid'; message: string };

const NAMES: Record<RevisionKind, { field: string; expected: string }> = {
  chartVersion: { field: 'chart version', expected: 'a SemVer 2 version' },
  sourceRevision: {
    field: 'applied revision',
    expected: 'a source revision Flux writes (such as main@sha1:<40 hex>)',
  },
};

/**
 * Checks what an object reports as its revision: absent when missing or empty (Flux omits an
 * empty field); otherwise valid only if it is a string of its kind. `message` continues
 * "<Kind> <name> ..." and quotes the value safely (bounded, escaped).
 */
export function checkRevision(kind: RevisionKind, value: unknown): CheckedRevision {
  if (value === undefined || value === null || value === '') return { state: 'absent' };
  const { field, expected } = NAMES[kind];
  if (typeof value !== 'string') {
    return { state: 'invalid', message: `reports a ${field} that is not text (${typeof value})` };
  }
  const valid = kind === 'chartVersion' ? isSemVer2(value) : isFluxSourceRevision(value);
  if (valid) return { state: 'valid', revision: value };
  return {
    state: 'invalid',
    message: `reports ${field} ${quote(value)}, which is not ${expected}`,
  };
}

// Invisible or line-breaking characters (controls, format characters such as bidi overrides,
// separators, unassigned and private-use code points, lone surrogates), and the quote syntax.
const NEEDS_ESCAPE = /[\p{C}\p{Z}"\\]/u;

/**
 * `value` in double quotes for a message: `"` and `\` backslash-escaped, every control,
 * format, separator (but the plain space) or unassigned character as `\uXXXX` / `\u{XXXXX}`,
 * cut to at most `max` characters inside the quotes (marked with `…`), never inside an escape.
 */
export function quote(value: string, max = 64): string {
  let out = '';
  for (const ch of value) {
    const piece = ch !== ' ' && NEEDS_ESCAPE.test(ch) ? escape(ch) : ch;
    if (out.length + piece.length > max) return `"${out}"…`;
    out += piece;
  }
  return `"${out}"`;
}

function escape(ch: string): string {
  if (ch === '"' || ch === '\\') return `\\${ch}`;
  const code = ch.codePointAt(0) ?? 0;
  const hex = code.toString(16).toUpperCase();
  return code > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
}
