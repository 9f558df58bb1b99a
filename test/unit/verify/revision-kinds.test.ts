/**
 * Revision kinds, by table: SemVer 2.0.0 chart versions (semver.org's own valid and invalid
 * examples, plus what Helm's lax parser would let through), the source revisions Flux writes,
 * and how a refused value is quoted.
 */
import { describe, expect, it } from 'vitest';
import {
  checkRevision,
  isFluxSourceRevision,
  isSemVer2,
  quote,
  revisionKindOf,
} from '../../../src/verify/revision-kinds.js';

const SHA1 = '450796ddb2ab6724ee1cc32a4be56da032d1cca0';
const SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

// The examples the SemVer authors test their regular expression with (semver.org FAQ,
// "Is there a suggested regular expression").
const SEMVER_VALID = [
  '0.0.4',
  '1.2.3',
  '10.20.30',
  '1.1.2-prerelease+meta',
  '1.1.2+meta',
  '1.1.2+meta-valid',
  '1.0.0-alpha',
  '1.0.0-alpha.beta.1',
  '1.0.0-alpha0.valid',
  '1.0.0-alpha.0valid',
  '1.0.0-alpha-a.b-c-somethinglong+build.1-aef.1-its-okay',
  '1.0.0-rc.1+build.1',
  '10.2.3-DEV-SNAPSHOT',
  '1.2.3-SNAPSHOT-123',
  '2.0.0+build.1848',
  '1.0.0-alpha+beta',
  '1.2.3----RC-SNAPSHOT.12.9.1--.12+788',
  '1.0.0+0.build.1-rc.10000aaa-kk-0.1',
  '99999999999999999999999.999999999999999999.99999999999999999',
  '1.0.0-0A.is.legal',
  // helm-controller's OCI charts carry the digest as build metadata (see the fixtures).
  '6.6.1+0cc9a8446c95',
];

const SEMVER_INVALID = [
  '1',
  '1.2',
  '1.2.3-0123',
  '1.2.3-0123.0123',
  '1.1.2+.123',
  '+invalid',
  '-invalid',
  'alpha',
  'alpha_beta',
  '1.0.0-alpha_beta',
  '1.0.0-alpha..1',
  '01.1.1',
  '1.01.1',
  '1.1.01',
  '1.2.3.DEV',
  '1.2-SNAPSHOT',
  '-1.0.3-gamma+b7718',
  '9.8.7+meta+meta',
  '9.8.7-whatever+meta+meta',
  // What Masterminds/semver's NewVersion (Helm's chart loader) tolerates, and hostile or
  // malformed text: shell syntax, lookalike digits, bidi controls, overlong tags.
  'v6.9.0',
  'V6.9.0',
  '=6.9.0',
  ' 6.9.0',
  '6.9.0 ',
  '6.9.0\n',
  '6.9.0; rm -rf /',
  '6.9.0$(id)',
  '6.9.0`id`',
  'banana',
  '',
  '６.９.０',
  '6.9.0\u202e',
  `1.0.0-${'a'.repeat(123)}`,
];

describe('isSemVer2', () => {
  it.each(SEMVER_VALID)('accepts %s', (v) => {
    expect(isSemVer2(v)).toBe(true);
  });
  it.each(SEMVER_INVALID)('refuses %j', (v) => {
    expect(isSemVer2(v)).toBe(false);
  });

  it('bounds the length at 128 characters', () => {
    const at = `1.0.0-${'a'.repeat(122)}`;
    expect(at).toHaveLength(128);
    expect(isSemVer2(at)).toBe(true);
    expect(isSemVer2(`${at}b`)).toBe(false);
  });
});

const FLUX_VALID = [
  `main@sha1:${SHA1}`,
  `v1.0.1@sha1:${SHA1}`,
  `feature/login-form@sha1:${SHA1}`,
  `dependabot/npm_and_yarn/foo-1.2.3@sha1:${SHA1}`,
  `refs/heads/main@sha1:${SHA1}`,
  `refs/pull/420/head@sha1:${SHA1}`,
  `v1.0.0+build.7@sha1:${SHA1}`,
  `sha1:${SHA1}`,
  `sha256:${SHA256}`,
  `sha384:${'a'.repeat(96)}`,
  `sha512:${'b'.repeat(128)}`,
  `blake3:${SHA256}`,
  `latest@sha256:${SHA256}`,
  `6.6.1@sha256:${SHA256}`,
  // RFC-0005 lets a named pointer carry `@`.
  `package@v1.0.0@sha256:${SHA256}`,
  // Before RFC-0005: `<ref>/<hex>`, and a bare checksum.
  `main/${SHA1}`,
  `HEAD/${SHA1}`,
  `feature/x/${SHA1}`,
  `latest/${SHA256}`,
  SHA256,
  SHA1,
];

const FLUX_INVALID = [
  '6.9.0; rm -rf /',
  'banana',
  '6.6.0',
  '',
  'main',
  `main@sha1:${SHA1.slice(1)}`,
  `main@sha1:${SHA1}0`,
  `main@SHA1:${SHA1}`,
  `main@sha1:${SHA1.toUpperCase()}`,
  `main@sha256:${SHA1}`,
  `main@md5:${'c'.repeat(32)}`,
  `main@<unknown>:${SHA1}`,
  `main @sha1:${SHA1}`,
  `ma;in@sha1:${SHA1}`,
  `$(id)@sha1:${SHA1}`,
  `\`id\`@sha1:${SHA1}`,
  `a|b@sha1:${SHA1}`,
  `../etc@sha1:${SHA1}`,
  `a..b@sha1:${SHA1}`,
  `/main@sha1:${SHA1}`,
  `main/@sha1:${SHA1}`,
  `refs//heads@sha1:${SHA1}`,
  `.hidden@sha1:${SHA1}`,
  `brünch@sha1:${SHA1}`,
  `main@sha1:${SHA1}\n`,
  ` sha1:${SHA1}`,
  `main@sha1:${SHA1}@sha1:${SHA1}`,
  `main/${SHA1.slice(1)}`,
  `main/${SHA1.toUpperCase()}`,
  `${'x'.repeat(250)}@sha1:${SHA1}`,
];

describe('isFluxSourceRevision', () => {
  it.each(FLUX_VALID)('accepts %s', (v) => {
    expect(isFluxSourceRevision(v)).toBe(true);
  });
  it.each(FLUX_INVALID)('refuses %j', (v) => {
    expect(isFluxSourceRevision(v)).toBe(false);
  });
});

describe('checkRevision', () => {
  it('knows which kind each app kind reports', () => {
    expect(revisionKindOf('HelmRelease')).toBe('chartVersion');
    expect(revisionKindOf('Kustomization')).toBe('sourceRevision');
  });

  it.each([undefined, null, ''])('%j is no revision', (value) => {
    expect(checkRevision('chartVersion', value)).toEqual({ state: 'absent' });
    expect(checkRevision('sourceRevision', value)).toEqual({ state: 'absent' });
  });

  it('passes a valid value through unchanged', () => {
    expect(checkRevision('chartVersion', '6.6.1+0cc9a8446c95')).toEqual({
      state: 'valid',
      revision: '6.6.1+0cc9a8446c95',
    });
    expect(checkRevision('sourceRevision', `main@sha1:${SHA1}`)).toEqual({
      state: 'valid',
      revision: `main@sha1:${SHA1}`,
    });
  });

  it('names the kind and quotes the value it refuses', () => {
    expect(checkRevision('chartVersion', '6.9.0; rm -rf /')).toEqual({
      state: 'invalid',
      message: 'reports chart version "6.9.0; rm -rf /", which is not a SemVer 2 version',
    });
    expect(checkRevision('sourceRevision', 'banana')).toEqual({
      state: 'invalid',
      message:
        'reports applied revision "banana", which is not a source revision Flux writes ' +
        '(such as main@sha1:<40 hex>)',
    });
    // A chart version is not a source revision, nor the other way round.
    expect(checkRevision('sourceRevision', '6.6.0').state).toBe('invalid');
    expect(checkRevision('chartVersion', `sha256:${SHA256}`).state).toBe('invalid');
  });

  it.each([
    [661, 'number'],
    [true, 'boolean'],
    [{ version: '6.6.0' }, 'object'],
    [['6.6.0'], 'object'],
  ])('refuses %j: not text', (value, type) => {
    expect(checkRevision('chartVersion', value)).toEqual({
      state: 'invalid',
      message: `reports a chart version that is not text (${type})`,
    });
  });
});

describe('quote', () => {
  it.each([
    ['6.9.0; rm -rf /', '"6.9.0; rm -rf /"'],
    ['a\nb', '"a\\u000Ab"'],
    ['a\u0000b\u007f', '"a\\u0000b\\u007F"'],
    ['say "hi" \\', '"say \\"hi\\" \\\\"'],
    // Bidi override, zero-width space, line separator, non-breaking space, lone surrogate.
    ['\u202e1.0\u200b\u2028\u00a0\ud800', '"\\u202E1.0\\u200B\\u2028\\u00A0\\uD800"'],
    ['\u{e0001}', '"\\u{E0001}"'],
    // Printable non-ASCII stays as it is.
    ['brünch 🙂', '"brünch 🙂"'],
  ])('%j -> %s', (value, want) => {
    expect(quote(value)).toBe(want);
  });

  it('cuts a long value, marking the cut, at most max characters inside the quotes', () => {
    const got = quote('x'.repeat(1000));
    expect(got).toBe(`"${'x'.repeat(64)}"…`);
    expect(quote('x'.repeat(64))).toBe(`"${'x'.repeat(64)}"`);
  });

  it('never cuts inside an escape', () => {
    const got = quote(`${'x'.repeat(60)}\n\n`);
    expect(got).toBe(`"${'x'.repeat(60)}"…`);
    expect(quote('\n'.repeat(100), 20)).toBe(`"${'\\u000A'.repeat(3)}"…`);
  });
});
