/**
 * The policy line `status` prints per environment (src/cli/policy-line.ts): each gate in a few
 * words, time left counted from the reader's clock, nothing for an environment without gates.
 */
import { describe, expect, it } from 'vitest';
import { policyLine } from '../../../src/cli/policy-line.js';
import type { PolicyView } from '../../../src/evaluate/policy-view.js';

const NOW = Date.parse('2026-11-25T10:00:00Z');
const halt = {
  id: 'h1',
  environment: 'prod',
  principal: 'alice',
  kind: 'human',
  reason: 'incident 42',
  since: '2026-11-25T09:00:00Z',
  until: '2026-11-26T08:00:00Z',
};

const shadow = (name: string) => ({
  gate: 'window' as const,
  name,
  reason: 'InDenyWindow',
  message: 'staging would wait',
});

const cases: [string, PolicyView | undefined, string][] = [
  ['no view', undefined, ''],
  [
    'a shadow window that would hold',
    { wouldHold: [shadow('freeze')] },
    'shadow window "freeze" would hold',
  ],
  [
    'shadow windows beside a closed window',
    {
      window: { open: false, reason: 'InDenyWindow', nextOpening: '2026-11-25T18:00:00Z' },
      wouldHold: [shadow('freeze'), shadow('night')],
    },
    'window closed, opens 2026-11-25T18:00:00Z; shadow windows "freeze", "night" would hold',
  ],
  [
    'a shadow soak beside a shadow window',
    { wouldHold: [shadow('freeze'), { ...shadow('staging'), gate: 'soak', reason: 'Soaking' }] },
    'shadow window "freeze" and soak would hold',
  ],
  [
    'a halt with an expiry',
    { halts: [halt] },
    'halted by alice until 2026-11-26T08:00:00Z (incident 42)',
  ],
  [
    'halts until lifted, and more',
    { halts: [{ ...halt, until: undefined }, halt] },
    'halted by alice until lifted (incident 42) (and 1 more)',
  ],
  [
    'a closed window',
    { window: { open: false, reason: 'InDenyWindow', nextOpening: '2026-11-25T18:00:00Z' } },
    'window closed, opens 2026-11-25T18:00:00Z',
  ],
  [
    'a closed window without an opening found',
    { window: { open: false, noOpeningBefore: '2027-11-27T00:00:00Z' } },
    'window closed, no opening before 2027-11-27T00:00:00Z',
  ],
  ['a window that never opens', { window: { open: false } }, 'window closed, no opening ahead'],
  [
    'an open window',
    { window: { open: true, closesAt: '2026-11-25T17:00:00Z' } },
    'window open until 2026-11-25T17:00:00Z',
  ],
  [
    'invalid windows',
    { window: { open: false, reason: 'InvalidPromotionWindow', problem: 'windows[0]: cron: x' } },
    'windows invalid: windows[0]: cron: x',
  ],
  [
    'a soak, counted from the reader’s clock to the minute',
    {
      soak: {
        duration: '30m',
        upstream: 'dev',
        healthySince: '2026-11-25T09:48:00.000Z',
        endsAt: '2026-11-25T10:18:00.000Z',
        left: '25m',
      },
    },
    'soak 18m left',
  ],
  [
    'the last minute of a soak, to the second',
    { soak: { duration: '30m', upstream: 'dev', endsAt: '2026-11-25T10:00:41.500Z' } },
    'soak 42s left',
  ],
  [
    'a soak over',
    { soak: { duration: '30m', upstream: 'dev', endsAt: '2026-11-25T09:59:00.000Z' } },
    'soak 30m done',
  ],
  ['a soak not started', { soak: { duration: '1h', upstream: 'dev', left: '1h' } }, 'soak 1h left'],
  ['a soak without a revision', { soak: { duration: '1h', upstream: 'dev' } }, 'soak 1h'],
  [
    'a soak too long',
    { soak: { duration: '9000h', upstream: 'dev', invalid: true } },
    'soak 9000h longer than the gateway counts',
  ],
  [
    'checks with results',
    {
      checks: [
        { name: 'a', kind: 'http', result: 'Passed' },
        { name: 'b', kind: 'http', result: 'Pending' },
        { name: 'c', kind: 'commitStatus', result: 'Passed' },
      ],
    },
    'checks 2/3 passed, 1 pending',
  ],
  [
    'checks failed and unknown',
    {
      checks: [
        { name: 'a', kind: 'http', result: 'Failed' },
        { name: 'b', kind: 'http', result: 'Unknown' },
      ],
    },
    'checks 0/2 passed, 1 failed, 1 unknown',
  ],
  ['checks without results', { checks: [{ name: 'a', kind: 'http' }] }, '1 check'],
  [
    'every gate, in the order they are asked',
    {
      halts: [halt],
      window: { open: false, nextOpening: '2026-11-25T18:00:00Z' },
      soak: { duration: '30m', upstream: 'dev', endsAt: '2026-11-25T10:12:00.000Z' },
      checks: [{ name: 'a', kind: 'http', result: 'Passed' }],
    },
    'halted by alice until 2026-11-26T08:00:00Z (incident 42); window closed, opens 2026-11-25T18:00:00Z; soak 12m left; checks 1/1 passed',
  ],
];

describe('the policy line', () => {
  it.each(cases)('%s', (_, view, line) => {
    expect(policyLine(view, NOW)).toBe(line);
  });
});
