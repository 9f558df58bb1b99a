import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ListPageParser, type ListMeta } from '../../../src/kube/list-page.js';

/** The chunks fed to a parser in order: the items it handed on, and the list's metadata. */
function parse(chunks: readonly string[]): { items: unknown[]; meta: ListMeta } {
  const items: unknown[] = [];
  const parser = new ListPageParser((item) => items.push(item));
  for (const chunk of chunks) parser.write(chunk);
  return { items, meta: parser.end() };
}

/** `text` cut at the given offsets. */
function cut(text: string, at: readonly number[]): string[] {
  const points = [...new Set(at.map((n) => n % (text.length + 1)))].sort((a, b) => a - b);
  return [0, ...points].map((from, i) => text.slice(from, points[i] ?? text.length));
}

const LIST = {
  apiVersion: 'helm.toolkit.fluxcd.io/v2',
  items: [
    {
      metadata: { name: 'a', namespace: 'ns', annotations: { '}{"items":[': '"],[{\\' } },
      spec: { items: [{ x: 1 }], values: { items: 'not these', unicode: 'é✓😀' } },
      status: { conditions: [{ type: 'Ready', message: 'ends in a backslash \\' }] },
    },
    { metadata: { name: 'b', namespace: 'ns' }, status: {} },
  ],
  kind: 'HelmReleaseList',
  metadata: { continue: 'eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ', resourceVersion: '42' },
};

describe('ListPageParser', () => {
  it.each([
    ['compact', JSON.stringify(LIST)],
    ['indented', JSON.stringify(LIST, null, 2)],
    ['metadata before items', JSON.stringify({ metadata: LIST.metadata, items: LIST.items })],
  ])('hands on each top-level item and keeps the metadata (%s)', (_name, text) => {
    expect(parse([text])).toEqual({
      items: LIST.items,
      meta: { continue: LIST.metadata.continue, resourceVersion: '42' },
    });
  });

  it.each([
    [
      'no items',
      '{"kind":"List","metadata":{"resourceVersion":"7"}}',
      [],
      { resourceVersion: '7' },
    ],
    ['items null', '{"items":null,"metadata":{"continue":""}}', [], {}],
    ['empty object', '{}', [], {}],
    [
      'items elsewhere',
      '{"kind":"items","metadata":{"items":[{"a":1}]},"note":"\\"items\\":[{\\"b\\":2}]","items":[]}',
      [],
      {},
    ],
  ])('hands on nothing but top-level items (%s)', (_name, text, items, meta) => {
    expect(parse([text])).toEqual({ items, meta });
  });

  it('gives the same whatever the chunks, one character each included', () => {
    const text = JSON.stringify(LIST);
    const whole = parse([text]);
    for (let size = 1; size < 40; size++) {
      const chunks = Array.from({ length: Math.ceil(text.length / size) }, (_, i) =>
        text.slice(i * size, (i + 1) * size),
      );
      expect(parse(chunks)).toEqual(whole);
    }
  });

  it('hands on an item as soon as its text is complete, before the answer ends', () => {
    const text = JSON.stringify(LIST);
    const items: unknown[] = [];
    const parser = new ListPageParser((item) => items.push(item));
    const firstEnds = text.indexOf(',{"metadata":{"name":"b"');
    parser.write(text.slice(0, firstEnds));
    expect(items).toEqual([LIST.items[0]]);
    parser.write(text.slice(firstEnds));
    expect(items).toHaveLength(2);
  });

  it('refuses an answer that ends early or is not JSON', () => {
    const text = JSON.stringify(LIST);
    for (const end of [1, 30, text.length - 1]) {
      expect(() => parse([text.slice(0, end)])).toThrow(SyntaxError);
    }
    expect(() => parse(['{"items":[{"a":1},{"b":}]}'])).toThrow(SyntaxError);
    expect(() => parse(['{"a":"unterminated}'])).toThrow(SyntaxError);
  });

  it('gives back any List: its items and its metadata, cut anywhere', () => {
    const item = fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 6 });
    fc.assert(
      fc.property(
        fc.array(item, { maxLength: 6 }),
        fc.dictionary(
          fc.string().filter((key) => key !== 'items' && key !== 'metadata'),
          fc.jsonValue(),
          { maxKeys: 4 },
        ),
        fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 8 }),
        (listItems, others, token, pretty, at) => {
          const list = { ...others, items: listItems, metadata: { continue: token ?? '' } };
          const text = pretty ? JSON.stringify(list, null, 1) : JSON.stringify(list);
          const { items, meta } = parse(cut(text, at));
          expect(items).toEqual(JSON.parse(JSON.stringify(listItems)));
          expect(meta).toEqual(token === undefined ? {} : { continue: token });
        },
      ),
    );
  });
});
