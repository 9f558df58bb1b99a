/**
 * The fleet's API servers as the cluster registry reports them: matched by address and port or
 * by name and port, names resolved at most once a minute, a dropped cluster forgotten.
 */
import { describe, expect, it } from 'vitest';
import { ApiServerBook } from '../../../src/egress/api-servers.js';
import { fakeResolver } from '../../support/address-guard.js';

describe('ApiServerBook', () => {
  it('knows each server by address or name, on its port (the scheme default too)', async () => {
    const resolve = fakeResolver({ 'kube.example': ['203.0.113.10', '2001:db8::10'] });
    const book = new ApiServerBook({ resolve, now: () => 0 });
    book.set('management', ['https://[::ffff:198.51.100.7]:6443', 'not a url']);
    book.set('dev', ['https://KUBE.example.']);
    expect(await book.at('198.51.100.7', 6443)).toBe(true);
    expect(await book.at('198.51.100.7', 443)).toBe(false);
    expect(book.named('kube.example', 443)).toBe(true);
    expect(book.named('kube.example', 6443)).toBe(false);
    expect(await book.at('203.0.113.10', 443)).toBe(true);
    expect(await book.at('2001:db8::10', 443)).toBe(true);
    expect(await book.at('203.0.113.11', 443)).toBe(false);
  });

  it('resolves a name again only after a minute, and forgets a dropped cluster', async () => {
    let now = 0;
    const resolve = fakeResolver({ 'kube.example': ['203.0.113.10'] });
    const book = new ApiServerBook({ resolve, now: () => now });
    book.set('dev', ['https://kube.example:6443']);
    await book.at('203.0.113.10', 6443);
    await book.at('203.0.113.10', 6443);
    expect(resolve.asked).toEqual(['kube.example']);
    now = 60_001;
    expect(await book.at('203.0.113.10', 6443)).toBe(true);
    expect(resolve.asked).toEqual(['kube.example', 'kube.example']);
    book.set('dev', []);
    expect(await book.at('203.0.113.10', 6443)).toBe(false);
    expect(book.named('kube.example', 6443)).toBe(false);
  });
});
