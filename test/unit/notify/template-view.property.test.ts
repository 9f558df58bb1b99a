/**
 * Whatever a template names, it renders data of the event and nothing else: over every sample
 * event, no template built of values, raw values, sections and inverted sections over paths of
 * the event's field names and JavaScript's own (constructor, prototype, __proto__, toString,
 * name, length...) renders the text of a function, a constructor or a prototype; and a single
 * `{{path}}` renders exactly what that path holds in the event's JSON, or nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventData } from '../../../src/notify/formats/event-names.js';
import { compileTemplate } from '../../../src/notify/template.js';
import { templateSamples } from '../../../src/notify/template-samples.js';

const FIELDS = [
  'id',
  'type',
  'time',
  'pipeline',
  'namespace',
  'name',
  'environment',
  'revision',
  'reason',
  'message',
  'severity',
  'targets',
  'cluster',
  'kind',
  'ready',
  'attempt',
  'principal',
  'decision',
  '0',
  '1',
  'length',
];
const JAVASCRIPT = [
  'constructor',
  'prototype',
  '__proto__',
  'toString',
  'valueOf',
  'toLocaleString',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  '__defineGetter__',
  '__lookupGetter__',
  'call',
  'apply',
  'bind',
  'caller',
  'arguments',
  'description',
  'toJSON',
  'at',
  'map',
  'charAt',
  'big',
  'padStart',
  'toFixed',
  'process',
  'globalThis',
  'Function',
  'Object',
];
/** What a function, a constructor or a prototype looks like as text. */
const LEAKS =
  /function|Function|native code|String|Number|Boolean|Object|Array|Symbol|prototype|constructor|=>|\[object/;

const path = fc
  .array(fc.constantFrom(...FIELDS, ...JAVASCRIPT), { minLength: 1, maxLength: 4 })
  .map((names) => names.join('.'));

const template: fc.Memo<string> = fc.memo((depth) =>
  fc.oneof(
    { depthSize: 'small' },
    path.map((p) => `{{${p}}}`),
    path.map((p) => `{{{${p}}}}`),
    fc.constant('{{.}}'),
    fc
      .tuple(path, depth > 1 ? template(depth - 1) : fc.constant('S'))
      .map(([p, inner]) => `{{#${p}}}[${inner}]{{/${p}}}`),
    fc
      .tuple(path, depth > 1 ? template(depth - 1) : fc.constant('I'))
      .map(([p, inner]) => `{{^${p}}}(${inner}){{/${p}}}`),
  ),
);
const templates = fc.array(template(3), { minLength: 1, maxLength: 4 }).map((t) => t.join('|'));

/** What `path` holds in the event's JSON: own fields of objects and lists (and a list's length). */
function inJson(data: unknown, names: readonly string[]): string {
  let current = data;
  for (const name of names) {
    const container = typeof current === 'object' && current !== null;
    const own =
      container &&
      (Object.hasOwn(current as object, name) || (Array.isArray(current) && name === 'length'));
    if (!own) return '';
    current = (current as Record<string, unknown>)[name];
  }
  return ['string', 'number', 'boolean'].includes(typeof current) ? String(current) : '';
}

describe('the template view', () => {
  it('renders no function, constructor or prototype for any template', () => {
    fc.assert(
      fc.property(templates, (text) => {
        const compiled = compileTemplate(text, { contentType: 'text/plain' });
        // Nested target lists are refused at load; everything else compiles.
        fc.pre(compiled.ok);
        for (const event of templateSamples())
          expect(compiled.template.render(event)).not.toMatch(LEAKS);
      }),
      { numRuns: 500 },
    );
  });

  it('renders for a {{path}} exactly what the path holds in the event, or nothing', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...FIELDS, ...JAVASCRIPT), { minLength: 1, maxLength: 4 }),
        (names) => {
          const compiled = compileTemplate(`{{{${names.join('.')}}}}`, {
            contentType: 'text/plain',
          });
          if (!compiled.ok) throw new Error(compiled.problem);
          for (const event of templateSamples()) {
            const data: unknown = JSON.parse(JSON.stringify({ id: event.id, ...eventData(event) }));
            expect(compiled.template.render(event)).toBe(inJson(data, names));
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
