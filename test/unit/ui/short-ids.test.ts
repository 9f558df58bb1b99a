/**
 * Long ids in the view: hashes keep their prefix and 7 digits, other long ids their first 8 and
 * last 4 characters, short ones stay whole; the markup keeps the whole value in the title and on
 * the copy button (escaped), and lets a line break only after `@` or `:`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { idHtml, shortId, SHORT_ID_MAX } from '../../../src/ui/short-ids.js';

const SHA1 = '0123456789abcdef0123456789abcdef01234567';
const SHA256 = `${SHA1}fedcba9876543210fedcba98`;

describe('shortId', () => {
  it.each([
    ['6.6.0', '6.6.0'],
    ['statement-1', 'statement-1'],
    [`sha256:${SHA256}`, 'sha256:0123456…'],
    [`main@sha1:${SHA1}`, 'main@sha1:0123456…'],
    [`6.6.0@sha256:${SHA256}`, '6.6.0@sha256:0123456…'],
    [SHA1, '0123456…'],
    ['0f8fad5b-d9cb-469f-a165-70867728950e', '0f8fad5b…950e'],
    ['1.2.3-rc.1+build.20261207', '1.2.3-rc…1207'],
  ])('%s reads %s', (value, short) => {
    expect(shortId(value)).toBe(short);
  });

  it('never lengthens an id, and keeps a prefix of it', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (value) => {
        const short = shortId(value);
        expect(short.length).toBeLessThanOrEqual(Math.max(value.length, SHORT_ID_MAX));
        expect(value.startsWith(short.replace(/….*$/, ''))).toBe(true);
      }),
    );
  });
});

describe('idHtml', () => {
  it('shows a short id whole, without a button', () => {
    expect(idHtml('6.6.0', 'revision').text).toBe('<span class="id">6.6.0</span>');
    expect(idHtml(undefined, 'revision').text).toBe('—');
  });

  it('shortens a long one, the whole value in its title and on its copy button', () => {
    const text = idHtml(`main@sha1:${SHA1}`, 'revision').text;
    expect(text).toContain(`title="main@sha1:${SHA1}"`);
    expect(text).toContain(`data-copy="main@sha1:${SHA1}"`);
    expect(text).toContain(
      '<span>main@</span><wbr /><span>sha1:</span><wbr /><span>0123456…</span>',
    );
    expect(text).toMatch(/<button type="button" class="copy"[^>]*title="Copy the whole revision"/);
  });

  it('leaves the button out when asked, and escapes what it shows', () => {
    const evil = `"><script>alert(1)</script>${SHA1}`;
    const text = idHtml(evil, 'statement id', false).text;
    expect(text).not.toContain('<button');
    expect(text).not.toContain('<script>');
    expect(text).toContain('title="&quot;&gt;&lt;script&gt;');
  });
});
