/**
 * notifications.crossNamespace: false by default, true, or a list of alert namespaces;
 * notifications.allowedUrlPrefixes: empty by default (any receiver), or http(s) URL prefixes; read
 * once into the frozen configuration; anything else is a problem naming the field.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, defaultConfig } from '../../../src/config/load.js';
import type { ConfigInput } from '../../../src/config/input.js';

function problemsOf(input: unknown): readonly string[] {
  try {
    defaultConfig(input as ConfigInput);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.problems;
  }
}

describe('notifications', () => {
  it('lets alerts select only their own namespace unless told otherwise', () => {
    expect(defaultConfig().notifications).toEqual({
      crossNamespace: false,
      allowedUrlPrefixes: [],
      enabled: true,
      intervalMs: 1000,
      retryBaseMs: 1000,
      retryMaxMs: 600_000,
      horizonMs: 86_400_000,
      previewWaitMs: 3_000,
    });
  });

  it('takes true, or a list of namespaces, and freezes it', () => {
    expect(defaultConfig({ notifications: { crossNamespace: true } }).notifications).toMatchObject({
      crossNamespace: true,
    });
    const config = defaultConfig({ notifications: { crossNamespace: ['platform', 'sre'] } });
    expect(config.notifications.crossNamespace).toEqual(['platform', 'sre']);
    expect(Object.isFrozen(config.notifications.crossNamespace)).toBe(true);
  });

  it('takes a list of receivers as URL prefixes, and freezes it', () => {
    const prefixes = ['https://hooks.slack.com/services/', 'http://receiver.ops.svc:8080'];
    const config = defaultConfig({ notifications: { allowedUrlPrefixes: prefixes } });
    expect(config.notifications.allowedUrlPrefixes).toEqual(prefixes);
    expect(Object.isFrozen(config.notifications.allowedUrlPrefixes)).toBe(true);
  });

  it.each([
    [
      { allowedUrlPrefixes: ['hooks.slack.com/services/'] },
      'config /notifications/allowedUrlPrefixes',
    ],
    [
      { allowedUrlPrefixes: ['https://user:pw@hooks.example.com/'] },
      'config /notifications/allowedUrlPrefixes',
    ],
    [{ crossNamespace: 'yes' }, 'config /notifications/crossNamespace'],
    [{ intervalMs: 10 }, 'config /notifications/intervalMs'],
    [{ horizonMs: 0 }, 'config /notifications/horizonMs'],
    [{ previewWaitMs: 60_000 }, 'config /notifications/previewWaitMs'],
    [{ crossNamespace: ['Not_A_Namespace'] }, 'config /notifications/crossNamespace'],
    [{ other: 1 }, 'config /notifications/other: is not a known field'],
  ])('refuses %j', (notifications, problem) => {
    const problems = problemsOf({ notifications });
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((p) => p.startsWith(problem))).toBe(true);
  });
});
