import { ResponseContext } from '@kubernetes/client-node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ListItemSplitter, itemsAsTheyArrive } from '../../../src/kube/list-items.js';
import type { StreamingBody } from '../../../src/kube/node-http.js';

/** `text` fed to a splitter in the given chunks: the items' texts and the rest. */
function split(chunks: readonly string[]): { items: string[]; rest: string } {
  const items: string[] = [];
  const splitter = new ListItemSplitter((text) => items.push(text));
  for (const chunk of chunks) splitter.write(chunk);
  return { items, rest: splitter.end() };
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
      spec: { items: [{ x: 1 }], values: { items: 'not these' } },
      status: { conditions: [{ type: 'Ready', message: 'ends in a backslash \\' }] },
    },
    { metadata: { name: 'b', namespace: 'ns' }, status: {} },
  ],
  kind: 'HelmReleaseList',
  metadata: { continue: 'eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ', resourceVersion: '42' },
};

describe('ListItemSplitter', () => {
  it('gives each item of the top-level items array, and the rest with items emptied', () => {
    for (const text of [JSON.stringify(LIST), JSON.stringify(LIST, null, 2)]) {
      const { items, rest } = split([text]);
      expect(items.map((item) => JSON.parse(item) as unknown)).toEqual(LIST.items);
      expect(JSON.parse(rest)).toEqual({ ...LIST, items: [] });
    }
  });

  it('gives the same whatever the chunks, one character each included', () => {
    const text = JSON.stringify(LIST);
    const whole = split([text]);
    for (let size = 1; size < 40; size++) {
      const chunks = Array.from({ length: Math.ceil(text.length / size) }, (_, i) =>
        text.slice(i * size, (i + 1) * size),
      );
      expect(split(chunks)).toEqual(whole);
    }
  });

  it('splits nothing but the top-level items: a key or string spelled so elsewhere stays', () => {
    const text = JSON.stringify({
      kind: 'items',
      metadata: { items: [{ a: 1 }] },
      note: '"items":[{"b":2}]',
      items: [],
    });
    const { items, rest } = split([text]);
    expect(items).toEqual([]);
    expect(rest).toBe(text);
  });

  it('passes an answer without items, or with items null, as it is', () => {
    for (const text of ['{"kind":"List","metadata":{}}', '{"items":null}', '{}']) {
      expect(split([text])).toEqual({ items: [], rest: text });
    }
  });

  it('refuses an answer that ends early', () => {
    const text = JSON.stringify(LIST);
    for (const end of [1, 30, text.length - 1]) {
      expect(() => split([text.slice(0, end)])).toThrow(SyntaxError);
    }
    expect(() => split(['{"a":"unterminated}'])).toThrow(SyntaxError);
  });

  it('gives back any List: its items and the rest, cut anywhere', () => {
    const item = fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 6 });
    fc.assert(
      fc.property(
        fc.array(item, { maxLength: 6 }),
        fc.dictionary(
          fc.string().filter((key) => key !== 'items'),
          fc.jsonValue(),
          { maxKeys: 4 },
        ),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 8 }),
        (listItems, others, pretty, at) => {
          const list = { ...others, items: listItems };
          const text = pretty ? JSON.stringify(list, null, 1) : JSON.stringify(list);
          const { items, rest } = split(cut(text, at));
          expect(items.map((t) => JSON.parse(t) as unknown)).toEqual(
            JSON.parse(JSON.stringify(listItems)),
          );
          expect(JSON.parse(rest)).toEqual(JSON.parse(JSON.stringify({ ...list, items: [] })));
        },
      ),
    );
  });
});

describe('itemsAsTheyArrive', () => {
  const headers = { 'content-type': 'application/json' };

  async function through(answer: ResponseContext): Promise<{ seen: unknown[]; out: string }> {
    const seen: unknown[] = [];
    const middleware = itemsAsTheyArrive((item) => seen.push(item));
    const passed = await middleware.post(answer).toPromise();
    return { seen, out: await passed.body.text() };
  }

  it('hands on items as the chunks arrive, and the answer without them', async () => {
    const text = JSON.stringify(LIST);
    const seenAt: number[] = [];
    let seen: unknown[] = [];
    const body: StreamingBody = {
      text: () => Promise.reject(new Error('read as it arrives, not whole')),
      binary: () => Promise.reject(new Error('read as it arrives, not whole')),
      each: (onText) => {
        for (let i = 0; i < text.length; i += 64) {
          onText(text.slice(i, i + 64));
          seenAt.push(seen.length);
        }
        return Promise.resolve();
      },
    };
    const middleware = itemsAsTheyArrive((item) => {
      seen = [...seen, item];
    });
    const passed = await middleware.post(new ResponseContext(200, headers, body)).toPromise();
    expect(seen).toEqual(LIST.items);
    // The first item was out before the last chunk came.
    expect(seenAt.findIndex((n) => n > 0)).toBeLessThan(seenAt.length - 1);
    expect(JSON.parse(await passed.body.text())).toEqual({ ...LIST, items: [] });
  });

  it('splits a body it can only read whole the same way', async () => {
    const text = JSON.stringify(LIST);
    const answer = new ResponseContext(200, headers, {
      text: () => Promise.resolve(text),
      binary: () => Promise.resolve(Buffer.from(text)),
    });
    const { seen, out } = await through(answer);
    expect(seen).toEqual(LIST.items);
    expect(JSON.parse(out)).toEqual({ ...LIST, items: [] });
  });

  it('leaves a failed answer to the client library, untouched', async () => {
    const status = '{"kind":"Status","code":403,"items":[{"x":1}]}';
    const answer = new ResponseContext(403, headers, {
      text: () => Promise.resolve(status),
      binary: () => Promise.resolve(Buffer.from(status)),
    });
    const { seen, out } = await through(answer);
    expect(seen).toEqual([]);
    expect(out).toBe(status);
  });

  it('fails the call on an item that is not JSON', async () => {
    const text = '{"items":[{"a":1},{"b":}]}';
    const answer = new ResponseContext(200, headers, {
      text: () => Promise.resolve(text),
      binary: () => Promise.resolve(Buffer.from(text)),
    });
    await expect(through(answer)).rejects.toThrow(SyntaxError);
  });
});
