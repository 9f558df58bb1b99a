/**
 * Label selectors (=, ==, !=, in, notin, exists, !exists) and the field selectors every
 * resource supports (metadata.name, metadata.namespace), parsed as the real server parses them.
 */
import type { SimObject } from './resources.js';
import { badRequest } from './status-errors.js';

/** A parsed selector: true when the object matches. */
export type Matcher = (obj: SimObject) => boolean;

function meta(obj: SimObject): Record<string, unknown> {
  return typeof obj.metadata === 'object' && obj.metadata !== null
    ? (obj.metadata as Record<string, unknown>)
    : {};
}

function labelsOf(obj: SimObject): Record<string, string> {
  const labels = meta(obj).labels;
  return typeof labels === 'object' && labels !== null ? (labels as Record<string, string>) : {};
}

/** Splits on commas that are not inside a `( ... )` value set. */
function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of selector) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      terms.push(current.trim());
      current = '';
    } else {
      current += ch;
    }
  }
  if (current.trim() !== '') terms.push(current.trim());
  return terms.filter((t) => t !== '');
}

const SET_TERM = /^([A-Za-z0-9._/-]+)\s+(in|notin)\s+\(([^)]*)\)$/;
const EQ_TERM = /^([A-Za-z0-9._/-]+)\s*(==|!=|=)\s*([A-Za-z0-9._-]*)$/;
const EXISTS_TERM = /^(!?)([A-Za-z0-9._/-]+)$/;

function labelTerm(term: string): Matcher {
  const set = SET_TERM.exec(term);
  if (set !== null) {
    const [, key = '', op, list = ''] = set;
    const values = new Set(
      list
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== ''),
    );
    return op === 'in'
      ? (o) => values.has(labelsOf(o)[key] ?? '\u0000')
      : (o) => !values.has(labelsOf(o)[key] ?? '\u0000');
  }
  const eq = EQ_TERM.exec(term);
  if (eq !== null) {
    const [, key = '', op, value = ''] = eq;
    return op === '!=' ? (o) => labelsOf(o)[key] !== value : (o) => labelsOf(o)[key] === value;
  }
  const exists = EXISTS_TERM.exec(term);
  if (exists !== null) {
    const [, not, key = ''] = exists;
    return not === '!' ? (o) => !(key in labelsOf(o)) : (o) => key in labelsOf(o);
  }
  throw badRequest(`unable to parse requirement: found '${term}', expected a label selector term`);
}

/** Parses a labelSelector query value; an empty or absent selector matches everything. */
export function parseLabelSelector(selector: string | null | undefined): Matcher {
  if (selector === null || selector === undefined || selector.trim() === '') return () => true;
  const terms = splitTerms(selector).map(labelTerm);
  return (o) => terms.every((t) => t(o));
}

/** Parses a fieldSelector; only metadata.name and metadata.namespace are supported, as for CRs. */
export function parseFieldSelector(selector: string | null | undefined): Matcher {
  if (selector === null || selector === undefined || selector.trim() === '') return () => true;
  const terms = selector.split(',').map((term) => {
    const m = /^\s*([A-Za-z0-9.]+)\s*(==|!=|=)\s*(.*?)\s*$/.exec(term);
    if (m === null) throw badRequest(`invalid selector: '${selector}'; can't understand '${term}'`);
    const [, field = '', op, value = ''] = m;
    if (field !== 'metadata.name' && field !== 'metadata.namespace') {
      throw badRequest(`field label not supported: ${field}`);
    }
    const key = field === 'metadata.name' ? 'name' : 'namespace';
    const get = (o: SimObject): string => {
      const v = meta(o)[key];
      return typeof v === 'string' ? v : '';
    };
    return op === '!=' ? (o: SimObject) => get(o) !== value : (o: SimObject) => get(o) === value;
  });
  return (o) => terms.every((t) => t(o));
}
