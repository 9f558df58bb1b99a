/**
 * Kubernetes label selectors, for halts across Pipelines and for the Pipelines a shard serves:
 * the text form kubectl takes (`team=payments,tier in (web,api),!canary`; equality- and
 * set-based) and the structured metav1.LabelSelector (`matchLabels`, `matchExpressions`),
 * parsed into one list of requirements with the API server's meaning (`!=`, `notin` and `!key`
 * match objects without the label), and printed back in one canonical text, which the halt
 * records keep. No npm library does this job in a well-kept way; this is the subset
 * metav1.LabelSelector can express (no `<`, `>`).
 */

/** One requirement on one label. */
export interface Requirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  /** Sorted, distinct; empty for Exists and DoesNotExist. */
  values: readonly string[];
}

/** A parsed selector: every requirement must hold. Never empty (see parseSelector). */
export type LabelSelector = readonly Requirement[];

/** metav1.LabelSelector, as a JSON body carries it. */
export interface StructuredSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** The selector, or the one-line reason it is not one. */
export type ParsedSelector = { ok: true; selector: LabelSelector } | { ok: false; problem: string };

/** Bounds that keep one selector (and the record that prints it) small. */
export const SELECTOR_LIMITS = { maxLength: 1024, maxRequirements: 32, maxValues: 64 } as const;

const NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const OPERATORS = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);

/** Whether `key` is a label key: an optional DNS-subdomain prefix and `/`, then a name. */
export function isLabelKey(key: string): boolean {
  const slash = key.lastIndexOf('/');
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (name.length > 63 || !NAME.test(name)) return false;
  return prefix === undefined || (prefix.length <= 253 && DNS_SUBDOMAIN.test(prefix));
}

/** Whether `value` is a label value: empty, or at most 63 name characters. */
export function isLabelValue(value: string): boolean {
  return value === '' || (value.length <= 63 && NAME.test(value));
}

/** Parses a selector in kubectl's text form; an empty one is refused (it would match all). */
export function parseSelectorText(text: string): ParsedSelector {
  if (text.length > SELECTOR_LIMITS.maxLength)
    return bad(`is longer than ${String(SELECTOR_LIMITS.maxLength)} characters`);
  const requirements: Requirement[] = [];
  for (const term of splitTerms(text)) {
    const parsed = parseTerm(term);
    if (typeof parsed === 'string') return bad(parsed);
    requirements.push(parsed);
  }
  return checked(requirements);
}

/** Parses a metav1.LabelSelector; an empty one is refused (it would match all). */
export function parseStructured(selector: StructuredSelector): ParsedSelector {
  const requirements: Requirement[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    const made = requirement(key, 'In', [value]);
    if (typeof made === 'string') return bad(made);
    requirements.push(made);
  }
  for (const { key, operator, values } of selector.matchExpressions ?? []) {
    if (!OPERATORS.has(operator))
      return bad(`operator "${clipped(operator)}" is not one of ${[...OPERATORS].join(', ')}`);
    const made = requirement(key, operator as Requirement['operator'], values ?? []);
    if (typeof made === 'string') return bad(made);
    requirements.push(made);
  }
  return checked(requirements);
}

/** Whether labels (a Pipeline's metadata.labels, as stored) satisfy every requirement. */
export function selectorMatches(selector: LabelSelector, labels: unknown): boolean {
  const own =
    typeof labels === 'object' && labels !== null ? (labels as Record<string, unknown>) : {};
  return selector.every(({ key, operator, values }) => {
    const value = Object.hasOwn(own, key) && typeof own[key] === 'string' ? own[key] : undefined;
    switch (operator) {
      case 'Exists':
        return value !== undefined;
      case 'DoesNotExist':
        return value === undefined;
      case 'In':
        return value !== undefined && values.includes(value);
      case 'NotIn':
        return value === undefined || !values.includes(value);
    }
  });
}

/** The canonical text of a selector: requirements by key, values sorted, `=` and `!=` where one value. */
export function selectorText(selector: LabelSelector): string {
  return [...selector]
    .sort((a, b) => compare(a.key, b.key) || compare(a.operator, b.operator))
    .map(({ key, operator, values }) => {
      if (operator === 'Exists') return key;
      if (operator === 'DoesNotExist') return `!${key}`;
      if (values.length === 1) return `${key}${operator === 'In' ? '=' : '!='}${values[0] ?? ''}`;
      return `${key} ${operator === 'In' ? 'in' : 'notin'} (${values.join(',')})`;
    })
    .join(',');
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function bad(problem: string): ParsedSelector {
  return { ok: false, problem };
}

function clipped(text: string): string {
  return text.length > 64 ? `${text.slice(0, 64)}...` : text;
}

function checked(requirements: Requirement[]): ParsedSelector {
  if (requirements.length === 0) return bad('selects every Pipeline: name at least one label');
  if (requirements.length > SELECTOR_LIMITS.maxRequirements)
    return bad(`has more than ${String(SELECTOR_LIMITS.maxRequirements)} requirements`);
  // The record keeps the canonical text, bounded as the CRD bounds it whatever the input form.
  if (selectorText(requirements).length > SELECTOR_LIMITS.maxLength)
    return bad(`is longer than ${String(SELECTOR_LIMITS.maxLength)} characters`);
  return { ok: true, selector: requirements };
}

/** A requirement, or what is wrong with it. */
function requirement(
  key: string,
  operator: Requirement['operator'],
  values: readonly string[],
): Requirement | string {
  if (!isLabelKey(key)) return `"${clipped(key)}" is not a label key`;
  const bad = values.find((v) => !isLabelValue(v));
  if (bad !== undefined) return `"${clipped(bad)}" is not a label value`;
  const set = operator === 'In' || operator === 'NotIn';
  if (set && values.length === 0) return `${key} ${operator} needs at least one value`;
  if (!set && values.length > 0) return `${key} ${operator} takes no values`;
  if (values.length > SELECTOR_LIMITS.maxValues)
    return `${key} has more than ${String(SELECTOR_LIMITS.maxValues)} values`;
  return { key, operator, values: [...new Set(values)].sort(compare) };
}

/** Splits on commas outside `( ... )`; a term is never empty (`a=1,,b=2` keeps an empty one). */
function splitTerms(text: string): string[] {
  if (text.trim() === '') return [];
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ',' && depth === 0) {
      terms.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  terms.push(text.slice(start).trim());
  return terms;
}

const SET_TERM = /^(\S+)\s+(in|notin)\s*\(([^()]*)\)$/;
const EQUALITY_TERM = /^([^\s=!]+)\s*(==|=|!=)\s*(\S*)$/;
const EXISTS_TERM = /^(!?)\s*([^\s=!(),]+)$/;

/** One term of the text form, or what is wrong with it. */
function parseTerm(term: string): Requirement | string {
  const set = SET_TERM.exec(term);
  if (set !== null) {
    const [, key = '', op, list = ''] = set;
    const values = list.split(',').map((v) => v.trim());
    if (values.length === 1 && values[0] === '') return `${key} ${String(op)} () needs a value`;
    return requirement(key, op === 'in' ? 'In' : 'NotIn', values);
  }
  const equality = EQUALITY_TERM.exec(term);
  if (equality !== null) {
    const [, key = '', op, value = ''] = equality;
    return requirement(key, op === '!=' ? 'NotIn' : 'In', [value]);
  }
  const exists = EXISTS_TERM.exec(term);
  if (exists !== null) {
    const [, not, key = ''] = exists;
    return requirement(key, not === '!' ? 'DoesNotExist' : 'Exists', []);
  }
  return term === '' ? 'has an empty term' : `cannot parse "${clipped(term)}"`;
}
