import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/json/canonical-json.js';
import { changeDigest, changeSummary, type ChangeSet } from '../../../src/preview/change-set.js';

const base: ChangeSet = {
  pipeline: { namespace: 'apps', name: 'podinfo' },
  environment: 'prod',
  revision: '6.6.0',
  moves: [{ target: 'prod/apps/podinfo', from: '6.5.0', to: '6.6.0' }],
  change: {
    kind: 'notification',
    event: {
      type: 'Normal',
      reason: 'Promote',
      message: 'Promote pipeline apps/podinfo to prod with version 6.6.0',
      annotations: { environment: 'prod', version: '6.6.0' },
    },
  },
};

/** The same value with every object's keys in reverse order. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>).reverse();
  return Object.fromEntries(entries.map(([k, v]) => [k, reversed(v)]));
}

describe('canonicalJson', () => {
  it('prints equal values alike whatever their key order, and leaves undefined members out', () => {
    expect(canonicalJson({ b: 1, a: [true, null, 'x'], c: undefined })).toBe(
      '{"a":[true,null,"x"],"b":1}',
    );
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(reversed(value))).toBe(canonicalJson(value));
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});

describe('changeDigest', () => {
  it('is a sha256 that key order does not change, and any change of content does', () => {
    const digest = changeDigest(base);
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(changeDigest(reversed(base) as ChangeSet)).toBe(digest);
    expect(changeDigest({ ...base, revision: '6.6.1' })).not.toBe(digest);
    const moved = { ...base, moves: [{ target: 'prod/apps/podinfo', from: '6.4.0', to: '6.6.0' }] };
    expect(changeDigest(moved)).not.toBe(digest);
  });

  it("leaves a webhook body's attempt and timestamp out, and nothing else", () => {
    const body = (attempt: number, timestamp: string, revision = '6.6.0') =>
      JSON.stringify({ environment: 'prod', revision, attempt, timestamp });
    const webhook = (text: string): ChangeSet => ({
      ...base,
      change: {
        kind: 'webhook',
        endpoint: 'deployer',
        body: text,
        varies: ['attempt', 'timestamp'],
      },
    });
    const first = changeDigest(webhook(body(1, '2026-01-01T00:00:00Z')));
    expect(changeDigest(webhook(body(2, '2026-01-02T00:00:00Z')))).toBe(first);
    expect(changeDigest(webhook(body(1, '2026-01-01T00:00:00Z', '6.6.1')))).not.toBe(first);
  });
});

describe('changeSummary', () => {
  it('names the move and the strategy', () => {
    expect(changeSummary(base)).toBe('prod: 6.5.0 -> 6.6.0 by a Promote event');
    const pr: ChangeSet = {
      ...base,
      moves: [],
      change: {
        ...{ kind: 'pull-request', repository: 'https://forge/acme/fleet', baseBranch: 'main' },
        ...{ baseCommit: 'abc', branch: 'promotion-apps-podinfo-prod', truncated: false },
        files: [{ path: 'a.yaml', diff: '' }],
      },
    };
    expect(changeSummary(pr)).toBe('prod: unknown -> 6.6.0 by pull request on main (1 file)');
  });
});
