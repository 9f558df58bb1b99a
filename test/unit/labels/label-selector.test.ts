/**
 * Label selectors as the API server reads them: kubectl's text form (equality- and set-based)
 * and metav1.LabelSelector parse to the same requirements, match as Kubernetes matches them
 * (`!=`, `notin` and `!key` match objects without the label), print back in one canonical
 * text, and anything else is refused with a reason.
 */
import { describe, expect, it } from 'vitest';
import {
  isLabelKey,
  parseSelectorText,
  parseStructured,
  selectorMatches,
  selectorText,
  type LabelSelector,
  type StructuredSelector,
} from '../../../src/labels/label-selector.js';

function parsed(text: string): LabelSelector {
  const result = parseSelectorText(text);
  if (!result.ok) throw new Error(result.problem);
  return result.selector;
}

const WEB = { team: 'payments', tier: 'web' };
const API = { team: 'payments', tier: 'api', canary: 'true' };
const SEARCH = { team: 'search' };
const NONE = {};
const ALL = { WEB, API, SEARCH, NONE } as const;

/** The names of ALL's label sets that `text` matches. */
function matching(text: string): string[] {
  const selector = parsed(text);
  return Object.entries(ALL)
    .filter(([, labels]) => selectorMatches(selector, labels))
    .map(([name]) => name);
}

describe('parseSelectorText and selectorMatches', () => {
  it.each([
    ['team=payments', ['WEB', 'API']],
    ['team==payments', ['WEB', 'API']],
    ['team!=payments', ['SEARCH', 'NONE']],
    ['team=payments,tier=web', ['WEB']],
    ['tier in (web, api)', ['WEB', 'API']],
    ['tier notin (web)', ['API', 'SEARCH', 'NONE']],
    ['canary', ['API']],
    ['!canary', ['WEB', 'SEARCH', 'NONE']],
    ['team in (payments,search),!canary', ['WEB', 'SEARCH']],
    ['  team = payments , tier in(api) ', ['API']],
    ['tier=', []],
  ])('%s matches %j', (text, names) => {
    expect(matching(text)).toEqual(names);
  });

  it.each([
    ['', 'selects every Pipeline'],
    ['   ', 'selects every Pipeline'],
    ['team=payments,', 'empty term'],
    ['team=pay ments', 'cannot parse'],
    ['tier in ()', 'needs a value'],
    ['tier in (web', 'cannot parse'],
    ['tier > 3', 'cannot parse'],
    ['-team=x', 'not a label key'],
    ['team=-x', 'not a label value'],
    [`team=${'a'.repeat(64)}`, 'not a label value'],
    ['Example.COM/team=x', 'not a label key'],
    [Array.from({ length: 33 }, (_, i) => `k${String(i)}=v`).join(','), 'more than 32'],
    ['x'.repeat(1025), 'longer than 1024'],
  ])('refuses %j (%s)', (text, problem) => {
    const result = parseSelectorText(text);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.problem).toContain(problem);
  });

  it('accepts prefixed keys as Kubernetes does', () => {
    expect(isLabelKey('app.kubernetes.io/part-of')).toBe(true);
    expect(isLabelKey('example.com/')).toBe(false);
    expect(isLabelKey(`${'a'.repeat(254)}/x`)).toBe(false);
    expect(matching('app.kubernetes.io/name')).toEqual([]);
  });

  it('reads labels that are not a map of strings as no labels', () => {
    expect(selectorMatches(parsed('!team'), undefined)).toBe(true);
    expect(selectorMatches(parsed('team'), { team: 7 })).toBe(false);
  });
});

describe('parseStructured', () => {
  it('means what the same selector as text means', () => {
    const structured: StructuredSelector = {
      matchLabels: { team: 'payments' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['web', 'api'] },
        { key: 'canary', operator: 'DoesNotExist' },
      ],
    };
    const result = parseStructured(structured);
    if (!result.ok) throw new Error(result.problem);
    const text = parsed('team=payments,tier in (api,web),!canary');
    expect(selectorText(result.selector)).toBe(selectorText(text));
    expect(selectorMatches(result.selector, WEB)).toBe(true);
    expect(selectorMatches(result.selector, API)).toBe(false);
  });

  it.each([
    [{}, 'selects every Pipeline'],
    [{ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }, 'at least one value'],
    [{ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }, 'takes no values'],
    [{ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }, 'is not one of'],
    [{ matchLabels: { 'a b': 'x' } }, 'not a label key'],
    [
      {
        matchExpressions: [
          {
            key: 'k',
            operator: 'In',
            values: Array.from({ length: 20 }, (_, i) => `${'v'.repeat(60)}${String(i)}`),
          },
        ],
      },
      'longer than 1024',
    ],
  ] as const)('refuses %j (%s)', (selector, problem) => {
    const result = parseStructured(selector as StructuredSelector);
    expect(result.ok ? '' : result.problem).toContain(problem);
  });
});

describe('selectorText', () => {
  it('prints one canonical text: keys sorted, values sorted and distinct, = and != for one value', () => {
    expect(selectorText(parsed('tier in (web,api,web),!canary,team==payments,zone!=eu'))).toBe(
      '!canary,team=payments,tier in (api,web),zone!=eu',
    );
    expect(selectorText(parsed('a notin (y,x),b'))).toBe('a notin (x,y),b');
  });

  it('parses back to the same selector', () => {
    const text = selectorText(parsed('tier in (web,api),!canary,team=payments,x'));
    expect(selectorText(parsed(text))).toBe(text);
  });
});
