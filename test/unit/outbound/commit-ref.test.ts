/**
 * The pure parts of the checks reader: which commit a revision names (Flux's revision forms and
 * ref templates), the one JSON field an HTTP check compares, and the verdict over a commit's
 * statuses and check runs.
 */
import { describe, expect, it } from 'vitest';
import { commitRefOf, isGitRef, shownRef } from '../../../src/outbound/commit-ref.js';
import { verdict, type Report } from '../../../src/checks/forge-statuses.js';
import { stepsOf, valueAt } from '../../../src/checks/json-path.js';

const SHA = '0123456789abcdef0123456789abcdef01234567';

describe('commitRefOf', () => {
  it.each([
    ['a Flux GitRepository revision', `main@sha1:${SHA}`, undefined, SHA],
    ['a branch with slashes', `feature/x@sha1:${SHA}`, undefined, SHA],
    ['a full ref name', `refs/heads/main@sha1:${SHA}`, undefined, SHA],
    ['a bare commit', `sha1:${SHA}`, undefined, SHA],
    ['the pre-RFC-0005 form', `main/${SHA}`, undefined, SHA],
    ['a chart version through a tag template', '1.2.3', 'v{{revision}}', 'v1.2.3'],
    ['a chart-releaser tag', '1.2.3+build.7', 'podinfo-{{revision}}', 'podinfo-1.2.3+build.7'],
    ['a fixed branch', '1.2.3', 'release', 'release'],
  ])('reads %s', (_name, revision, template, ref) => {
    expect(commitRefOf(revision, template)).toEqual({ ref });
  });

  it.each([
    ['a chart version without a template', '1.2.3', undefined, 'names no Git commit'],
    [
      'an OCI digest (not a commit)',
      `latest@sha256:${'a'.repeat(64)}`,
      undefined,
      'names no Git commit',
    ],
    ['a Bucket checksum', `sha256:${'a'.repeat(64)}`, undefined, 'names no Git commit'],
    ['a template making no ref', `main@sha1:${SHA}`, '{{revision}}', 'is not a valid Git ref'],
  ])('finds no commit in %s', (_name, revision, template, problem) => {
    const got = commitRefOf(revision, template);
    expect('problem' in got && got.problem).toContain(problem);
  });

  it('checks refs as git check-ref-format does', () => {
    for (const ok of ['v1.2.3', 'tags/v1', 'release/2024-01', 'a+b', 'x@y'])
      expect([ok, isGitRef(ok)]).toEqual([ok, true]);
    for (const bad of [
      '',
      '-x',
      'a..b',
      'a b',
      'a:b',
      'a~1',
      'a^',
      'a?',
      'a*',
      'a[',
      'a\\b',
      '/a',
      'a/',
      'a//b',
      '.a',
      'a/.b',
      'a.lock',
      'a.',
      '@',
      'a@{1}',
    ])
      expect([bad, isGitRef(bad)]).toEqual([bad, false]);
    expect(shownRef(SHA)).toBe(SHA.slice(0, 12));
    expect(shownRef('v1.2.3')).toBe('v1.2.3');
  });
});

describe('valueAt', () => {
  const doc = { a: { 'b/c': { '~d': [10, { e: null }] } }, 'x.y': 1, list: ['p', 'q'] };

  it.each([
    ['/a/b~1c/~0d/0', 10],
    ['/a/b~1c/~0d/1/e', null],
    ['list.1', 'q'],
    ['/list/0', 'p'],
  ])('finds %s', (path, value) => {
    expect(valueAt(doc, path)).toEqual({ found: true, value });
  });

  it.each([
    '/a/missing',
    'list.2',
    'list.-1',
    'list.01',
    'x.y',
    '/a/b~1c/~0d/0/deeper',
    'constructor',
  ])('finds nothing at %s', (path) => {
    expect(valueAt(doc, path)).toEqual({ found: false });
  });

  it('splits pointers and dotted paths', () => {
    expect(stepsOf('/a~1b/c~0')).toEqual(['a/b', 'c~']);
    expect(stepsOf('a.b.0')).toEqual(['a', 'b', '0']);
  });
});

const r = (name: string, state: Report['state'], word = state.toLowerCase()): Report => ({
  name,
  state,
  word,
});

describe('verdict over a commit’s reports', () => {
  it.each([
    [
      'all named contexts passed',
      [r('ci/e2e', 'Passed', 'success'), r('lint', 'Failed')],
      ['ci/e2e'],
      'Passed',
      'ci/e2e success at v1',
    ],
    [
      'a named context failed',
      [r('ci/e2e', 'Failed', 'timed_out')],
      ['ci/e2e'],
      'Failed',
      'ci/e2e timed_out at v1',
    ],
    [
      'a named context not reported yet',
      [r('lint', 'Passed')],
      ['ci/e2e'],
      'Pending',
      'ci/e2e not reported yet at v1',
    ],
    [
      'contexts compare case-insensitively',
      [r('CI/E2E', 'Passed', 'success')],
      ['ci/e2e'],
      'Passed',
      undefined,
    ],
    [
      'a status and a check run of one name: the worst',
      [r('e2e', 'Passed'), r('e2e', 'Pending', 'in_progress')],
      ['e2e'],
      'Pending',
      'e2e in_progress at v1',
    ],
    [
      'every report when none is named',
      [r('b', 'Passed', 'success'), r('a', 'Passed', 'success')],
      [],
      'Passed',
      'a success, b success at v1',
    ],
    ['nothing reported, none named', [], [], 'Pending', 'nothing reported yet at v1'],
    [
      'failed beats pending',
      [r('a', 'Pending'), r('b', 'Failed', 'failure')],
      [],
      'Failed',
      'b failure at v1',
    ],
  ])('%s', (_name, reports, contexts, state, message) => {
    const got = verdict({ reports, truncated: false }, contexts, 'v1');
    expect(got.state).toBe(state);
    if (message !== undefined) expect(got.message).toBe(message);
  });

  it('is Unknown when a truncated answer may hide what is asked', () => {
    const truncated = { reports: [r('a', 'Passed')], truncated: true };
    expect(verdict(truncated, [], 'v1').state).toBe('Unknown');
    expect(verdict(truncated, ['b'], 'v1')).toEqual({
      state: 'Unknown',
      message: 'b is not among the first 100 statuses at v1',
    });
    expect(verdict(truncated, ['a'], 'v1').state).toBe('Passed');
  });
});
