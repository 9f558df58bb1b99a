/**
 * The operator's break-glass policy (config approvals.breakGlass): off by default, its defaults,
 * its bounds, and the names it lists checked against the approvers and CI policies at load.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, defaultConfig } from '../../../src/config/load.js';
import type { ConfigInput } from '../../../src/config/input.js';

const approvals = {
  approvers: [
    { name: 'alice', oidcSubjects: ['https://sso.example.com#alice'] },
    { name: 'bob', oidcSubjects: ['https://sso.example.com#bob'] },
  ],
};
const ci = {
  issuers: [
    {
      name: 'github',
      issuer: 'https://token.actions.githubusercontent.com',
      audience: 'promotion-gateway',
      jwksUrl: 'https://token.actions.githubusercontent.com/.well-known/jwks',
    },
  ],
  policies: [
    {
      name: 'e2e',
      issuer: 'github',
      claims: { repository: 'acme/podinfo' },
      pipelines: ['*'],
      environments: ['prod'],
    },
  ],
};

function problemsOf(breakGlass: unknown): readonly string[] {
  const input = {
    approvals: { ...approvals, breakGlass },
    ci,
  } as unknown as ConfigInput;
  try {
    defaultConfig(input);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.problems;
  }
  return [];
}

describe('config approvals.breakGlass', () => {
  it('is present and disabled by default: a quorum of 2 within an hour, nobody listed', () => {
    expect(defaultConfig().authorizations.breakGlass).toEqual({
      minApprovals: 2,
      approvers: [],
      validForSeconds: 3600,
    });
  });

  it('keeps what the operator sets', () => {
    const config = defaultConfig({
      approvals: {
        ...approvals,
        breakGlass: { minApprovals: 3, approvers: ['alice', 'group:sre'], validForSeconds: 600 },
      },
    });
    expect(config.authorizations.breakGlass).toEqual({
      minApprovals: 3,
      approvers: ['alice', 'group:sre'],
      validForSeconds: 600,
    });
    expect(Object.isFrozen(config.authorizations.breakGlass?.approvers)).toBe(true);
  });

  it('accepts approvers, groups, CI policies and other principals it cannot check', () => {
    expect(
      problemsOf({ approvers: ['alice', 'bob', 'group:sre', 'ci:e2e', 'oidc:sso#carol'] }),
    ).toEqual([]);
  });

  it.each([
    [{ minApprovals: 0 }, 'config /approvals/breakGlass/minApprovals: must be >= 1'],
    [{ minApprovals: 17 }, 'config /approvals/breakGlass/minApprovals: must be <= 16'],
    [{ validForSeconds: 59 }, 'config /approvals/breakGlass/validForSeconds: must be >= 60'],
    [{ validForSeconds: 86401 }, 'config /approvals/breakGlass/validForSeconds: must be <= 86400'],
    [{ approvers: ['alice', ''] }, 'config /approvals/breakGlass/approvers/1'],
    [{ quorum: 2 }, 'config /approvals/breakGlass'],
    [
      { approvers: ['alice', 'carol'] },
      'config /approvals/breakGlass/approvers/1: names no entry of approvals.approvers ("carol")',
    ],
    [
      { approvers: ['ci:deploy'] },
      'config /approvals/breakGlass/approvers/0: names no entry of ci.policies ("ci:deploy")',
    ],
  ])('refuses %j at load, naming the field', (breakGlass, expected) => {
    const problems = problemsOf(breakGlass);
    expect(problems.some((p) => p.startsWith(expected))).toBe(true);
  });
});
