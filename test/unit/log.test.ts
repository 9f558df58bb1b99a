import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, REDACTED } from '../../src/log.js';

function capture(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString('utf8'));
      callback();
    },
  });
  return { lines, stream };
}

describe('createLogger redaction', () => {
  it('redacts credential headers and secret-named keys at any usual depth', () => {
    const { lines, stream } = capture();
    const logger = createLogger('debug', stream);
    logger.debug(
      {
        req: {
          headers: {
            authorization: 'Bearer eyJSECRET1',
            'x-signature': 'sha256=SECRET2',
            'webhook-signature': 'v1,SECRET3',
            cookie: 'sid=SECRET4',
            'content-type': 'application/json',
          },
        },
        headers: { authorization: 'Basic SECRET5' },
        token: 'SECRET6',
        config: {
          clusters: [{ name: 'dev', hmacKeys: ['SECRET7'] }],
          jwt: { secret: 'SECRET8' },
          promotion: { webhooks: { a: { secret: 'SECRET9' } } },
        },
        err: { password: 'SECRET10' },
      },
      'everything',
    );
    const output = lines.join('');
    for (let i = 1; i <= 10; i++) expect(output).not.toMatch(new RegExp(`SECRET${i}(?!\\d)`));
    expect(output).toContain(REDACTED);
    expect(output).toContain('application/json');
    expect(output).toContain('"name":"dev"');
  });

  it('honours the level', () => {
    const { lines, stream } = capture();
    const logger = createLogger('info', stream);
    logger.debug('hidden');
    logger.info('shown');
    expect(lines.join('')).not.toContain('hidden');
    expect(lines.join('')).toContain('shown');
  });
});
