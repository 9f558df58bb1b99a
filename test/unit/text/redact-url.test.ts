import { describe, expect, it } from 'vitest';
import { redactUrls } from '../../../src/text/redact-url.js';

describe('redactUrls', () => {
  it.each([
    ['https://admin:S3cret@host:6443', 'https://[REDACTED]@host:6443'],
    ['(https://admin:S3cret@10.0.0.1:6443)', '(https://[REDACTED]@10.0.0.1:6443)'],
    [
      'git over https://ghp_abc@github.com/acme/x.git',
      'git over https://[REDACTED]@github.com/acme/x.git',
    ],
    ['https://admin:S3/cret@host/x', 'https://[REDACTED]@host/x'],
    ['HTTPS://U:P@H', 'HTTPS://[REDACTED]@H'],
    ['https://h/p?a=1&token=abc', 'https://h/p?a=1&token=[REDACTED]'],
    [
      'https://h/?access_token=x#id_token=y&state=2',
      'https://h/?access_token=[REDACTED]#id_token=[REDACTED]&state=2',
    ],
    [
      'https://a.blob.core.windows.net/c?sv=2020&sig=AbC%2F&se=1',
      'https://a.blob.core.windows.net/c?sv=2020&sig=[REDACTED]&se=1',
    ],
    [
      'https://s3/x?X-Amz-Signature=abc&X-Amz-Credential=AKIA',
      'https://s3/x?X-Amz-Signature=[REDACTED]&X-Amz-Credential=[REDACTED]',
    ],
    ['https://gitlab/x?private_token=glpat', 'https://gitlab/x?private_token=[REDACTED]'],
  ])('%s', (text, redacted) => {
    expect(redactUrls(text)).toBe(redacted);
    expect(redactUrls(redacted)).toBe(redacted);
  });

  it('leaves text without credentials as it is, @ in a path and JSON escapes included', () => {
    for (const text of [
      'no URL here',
      'https://mastodon.social/@user and https://h/p?page=2#top',
      'user@example.com',
    ])
      expect(redactUrls(text)).toBe(text);
    const json = JSON.stringify({ url: 'https://u:p@h/?token=a"b', n: 1 });
    const safe = redactUrls(json);
    expect(JSON.parse(safe)).toEqual({ url: 'https://[REDACTED]@h/?token=[REDACTED]"b', n: 1 });
  });
});
