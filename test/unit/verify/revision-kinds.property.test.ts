/**
 * Revision kinds, by property: generated SemVer 2.0.0 versions and Flux source revisions are
 * accepted, and become the target's revision; the same values mutated (a shell metacharacter,
 * space, control or non-ASCII character inserted anywhere, a leading `v`, a leading zero, a
 * missing part, past the length bound) are refused, and the target is Unknown InvalidRevision.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_CHART_VERSION_LENGTH,
  isFluxSourceRevision,
  isSemVer2,
} from '../../../src/verify/revision-kinds.js';
import { targetStatusFromObject } from '../../../src/verify/target-status.js';
import { LOCATION, READY_HR, READY_KS, edited } from '../../support/flux-objects.js';

const chars = (s: string): string[] => Array.from(s);
const DIGITS = chars('0123456789');
const LETTERS = chars('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-');
const HEX = chars('0123456789abcdef');

const text = (alphabet: string[], minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...alphabet), minLength, maxLength });

/** A numeric identifier: 0, or digits without a leading zero (beyond any integer type too). */
const numeric = fc.oneof(
  fc.constant('0'),
  fc.bigInt({ min: 1n, max: 10n ** 30n }).map(String),
  fc.integer({ min: 1, max: 30 }).map(String),
);
/** An alphanumeric identifier: at least one letter or hyphen, leading zeros allowed. */
const alphanumeric = fc
  .tuple(text(DIGITS, 0, 3), fc.constantFrom(...LETTERS), text([...DIGITS, ...LETTERS], 0, 8))
  .map(([a, b, c]) => a + b + c);
const dotted = (part: fc.Arbitrary<string>) =>
  fc.array(part, { minLength: 1, maxLength: 4 }).map((p) => p.join('.'));

/** A SemVer 2.0.0 version, built from the grammar of semver.org, within the length bound. */
const semver = fc
  .record({
    core: fc.tuple(numeric, numeric, numeric).map((n) => n.join('.')),
    pre: fc.option(dotted(fc.oneof(numeric, alphanumeric)), { nil: undefined }),
    build: fc.option(dotted(text([...DIGITS, ...LETTERS], 1, 8)), { nil: undefined }),
  })
  .map(
    ({ core, pre, build }) =>
      `${core}${pre === undefined ? '' : `-${pre}`}${build === undefined ? '' : `+${build}`}`,
  )
  .filter((v) => v.length <= MAX_CHART_VERSION_LENGTH);

/** Characters no revision of either kind may contain. */
const FOREIGN = chars(' ;$`|&<>()*?!\'"\\~^:[]{}#%=,\t\n\r\u0000\u007féü６\u202e\u200b\u00a0');
const foreign = fc.oneof(fc.constantFrom(...FOREIGN), fc.constant('🙂'));

/** `value` with `ch` inserted at a generated position. */
const inserted = (value: fc.Arbitrary<string>) =>
  fc
    .tuple(value, foreign, fc.nat())
    .map(([v, ch, at]) => v.slice(0, at % (v.length + 1)) + ch + v.slice(at % (v.length + 1)));

/** Ways to spoil a valid SemVer version, each of which SemVer 2.0.0 refuses. */
const spoiledSemver = fc.oneof(
  inserted(semver),
  fc.tuple(fc.constantFrom('v', 'V', '=', ' '), semver).map(([p, v]) => p + v),
  semver.map((v) => `0${v}`),
  semver.map((v) => v.replace(/^(\d+)\.(\d+)\.(\d+)/, '$1.$2')),
  semver.map((v) => `${v}${v.includes('+') ? '.' : '+'}${'b'.repeat(MAX_CHART_VERSION_LENGTH)}`),
);

const hex = (n: number) => text(HEX, n, n);
const component = fc
  .tuple(fc.constantFrom(...chars('abcXYZ019_+-')), text(chars('abcz09._+-@'), 0, 12))
  .map(([a, b]) => a + b)
  .filter((c) => !c.includes('..'));
const pointer = fc.array(component, { minLength: 1, maxLength: 4 }).map((c) => c.join('/'));
const digest = fc.oneof(
  hex(40).map((h) => `sha1:${h}`),
  hex(64).map((h) => `sha256:${h}`),
  hex(128).map((h) => `sha512:${h}`),
);

/** A revision in one of the forms Flux writes, current or from before RFC-0005. */
const fluxRevision = fc.oneof(
  fc.tuple(pointer, digest).map(([p, d]) => `${p}@${d}`),
  digest,
  fc.tuple(pointer, fc.oneof(hex(40), hex(64))).map(([p, h]) => `${p}/${h}`),
);

const spoiledFluxRevision = fc.oneof(
  inserted(fluxRevision),
  fc.tuple(pointer, hex(39)).map(([p, h]) => `${p}@sha1:${h}`),
  fc.tuple(pointer, hex(40)).map(([p, h]) => `${p}@sha1:${h.toUpperCase()}G`),
  fc.tuple(pointer, hex(40)).map(([p, h]) => `${p}@md5:${h}`),
  semver,
);

describe('SemVer 2.0.0 chart versions, generated', () => {
  it('accepts every generated version', () => {
    fc.assert(fc.property(semver, (v) => isSemVer2(v)));
  });

  it('refuses every spoiled one', () => {
    fc.assert(fc.property(spoiledSemver, (v) => !isSemVer2(v)));
  });

  it('a HelmRelease deployed at a generated version is Healthy at it', () => {
    fc.assert(
      fc.property(semver, (v) => {
        const obj = edited(READY_HR, (o) => (o.status!.history![0]!.chartVersion = v));
        const got = targetStatusFromObject(obj, LOCATION);
        expect(got).toMatchObject({ health: 'Healthy', reason: 'Ready', revision: v });
      }),
    );
  });

  it('a HelmRelease deployed at a spoiled one is Unknown InvalidRevision, with no revision', () => {
    fc.assert(
      fc.property(spoiledSemver, (v) => {
        const obj = edited(READY_HR, (o) => (o.status!.history![0]!.chartVersion = v));
        const got = targetStatusFromObject(obj, LOCATION);
        expect(got.health).toBe('Unknown');
        expect(got.reason).toBe('InvalidRevision');
        expect(got.revision).toBeUndefined();
        expect(got.message).toMatch(/^HelmRelease podinfo reports chart version "/);
        assertSafeMessage(got.message);
      }),
    );
  });
});

describe('Flux source revisions, generated', () => {
  it('accepts every generated revision', () => {
    fc.assert(fc.property(fluxRevision, (v) => isFluxSourceRevision(v)));
  });

  it('refuses every spoiled one', () => {
    fc.assert(fc.property(spoiledFluxRevision, (v) => !isFluxSourceRevision(v)));
  });

  it('a Kustomization is Healthy at a generated revision, Unknown at a spoiled one', () => {
    fc.assert(
      fc.property(fluxRevision, spoiledFluxRevision, (good, bad) => {
        const at = (r: string) =>
          targetStatusFromObject(
            edited(READY_KS, (o) => (o.status!.lastAppliedRevision = r)),
            LOCATION,
          );
        expect(at(good)).toMatchObject({ health: 'Healthy', revision: good });
        const refused = at(bad);
        expect(refused).toMatchObject({ health: 'Unknown', reason: 'InvalidRevision' });
        expect(refused.revision).toBeUndefined();
        expect(refused.message).toMatch(/^Kustomization podinfo reports applied revision "/);
        assertSafeMessage(refused.message);
      }),
    );
  });
});

/** Bounded, one line, no control or invisible characters: safe in status, events and logs. */
function assertSafeMessage(message: string): void {
  expect(message.length).toBeLessThanOrEqual(256);
  expect(message).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u00a0]/u);
}
