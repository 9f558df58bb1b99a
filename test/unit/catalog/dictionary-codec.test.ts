import { randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DictionaryCodec } from '../../../src/catalog/dictionary-codec.js';
import { PACKING_DICTIONARY } from '../../../src/catalog/packing-dictionary.js';

const nodeOptions = { dictionary: PACKING_DICTIONARY };
const bytesOf = (packed: string) => Buffer.from(packed, 'latin1');

describe('DictionaryCodec', () => {
  it('inflates what it deflated, any text, one stream for every call', () => {
    const codec = new DictionaryCodec(PACKING_DICTIONARY);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), (text) => {
        expect(codec.inflate(codec.deflate(text))).toBe(text);
      }),
    );
  });

  it('deflates equal text to equal bytes whatever it deflated before, as a new codec would', () => {
    const used = new DictionaryCodec(PACKING_DICTIONARY);
    fc.assert(
      fc.property(
        fc.array(fc.json(), { minLength: 1, maxLength: 5 }),
        fc.json(),
        (before, text) => {
          for (const other of before) used.deflate(other);
          expect(used.deflate(text)).toBe(new DictionaryCodec(PACKING_DICTIONARY).deflate(text));
        },
      ),
      { numRuns: 300 },
    );
    // What fast-check found before the window was cleared between calls.
    used.deflate('false');
    expect(used.deflate('{"":[{}]}')).toBe(
      new DictionaryCodec(PACKING_DICTIONARY).deflate('{"":[{}]}'),
    );
  });

  it('reads and writes raw deflate against the dictionary, as node:zlib does', () => {
    const codec = new DictionaryCodec(PACKING_DICTIONARY);
    const text = JSON.stringify({ observedGeneration: 3, conditions: [{ type: 'Ready' }] });
    expect(inflateRawSync(bytesOf(codec.deflate(text)), nodeOptions).toString('utf8')).toBe(text);
    const fromNode = deflateRawSync(text, nodeOptions).toString('latin1');
    expect(codec.inflate(fromNode)).toBe(text);
    // The dictionary is used: without it, node:zlib cannot read the stream.
    expect(() => inflateRawSync(bytesOf(codec.deflate(text)))).toThrow();
  });

  it('grows its buffers for a value larger than they are, and works on after', () => {
    const codec = new DictionaryCodec(PACKING_DICTIONARY);
    // Random base64 hardly compresses: 200 KB in, about 150 KB deflated, both past 16 KiB.
    const large = randomBytes(150_000).toString('base64');
    const packed = codec.deflate(large);
    expect(packed.length).toBeGreaterThan(64 * 1024);
    expect(codec.inflate(packed)).toBe(large);
    expect(codec.inflate(codec.deflate('small'))).toBe('small');
  });

  it('throws on bytes that are not a whole stream, and reads the next one', () => {
    const codec = new DictionaryCodec(PACKING_DICTIONARY);
    const packed = codec.deflate(JSON.stringify({ name: 'checkout', revision: '6.4.1' }));
    expect(() => codec.inflate(packed.slice(0, packed.length - 3))).toThrow(/zlib error/);
    expect(() => codec.inflate('\xff\xff\xff\xff')).toThrow(/zlib error/);
    expect(codec.inflate(packed)).toBe(JSON.stringify({ name: 'checkout', revision: '6.4.1' }));
  });
});
