import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, lazyChildLoggerFactory, REDACTED } from '../../src/log.js';

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

  it('redacts at any depth, in any case, in errors and child bindings, without mutating input', () => {
    const { lines, stream } = capture();
    const logger = createLogger('debug', stream);
    const deep = { a: { b: { c: { d: { e: { f: { token: 'SECRET1' } } } } } } };
    const error = Object.assign(new Error('boom'), {
      headers: { Authorization: 'Bearer SECRET2' },
      response: { config: { hmacKeys: ['SECRET3'] } },
    });
    const circular: Record<string, unknown> = { password: 'SECRET4' };
    circular.self = circular;
    logger.info({ deep, err: error, circular, list: [{ SECRET: 'SECRET5' }] }, 'nested');
    logger.child({ binding: { clientSecret: 'SECRET6' } }).info('child');
    logger.child({ id: 1 }, { level: 'debug' }).child({ Token: 'SECRET7' }).debug('grandchild');
    logger.error(error, 'plain error');
    const output = lines.join('');
    for (let i = 1; i <= 7; i++) expect(output).not.toMatch(new RegExp(`SECRET${i}(?!\\d)`));
    expect(output).toContain('boom');
    expect(output).toContain('[Circular]');
    expect(output).toContain('grandchild');
    expect(deep.a.b.c.d.e.f.token).toBe('SECRET1');
    expect(error.headers.Authorization).toBe('Bearer SECRET2');
    expect(circular.password).toBe('SECRET4');
  });

  it('redacts the credentials of URLs in messages, fields, bindings and errors', () => {
    const { lines, stream } = capture();
    const logger = createLogger('debug', stream);
    const server = 'https://admin:SECRET1@api.example.com:6443';
    const error = new Error(`cannot reach https://bot:SECRET2@forge.example.com/x.git`);
    logger
      .child({ upstream: 'https://h.example.com/hook?sig=SECRET3&v=1' })
      .warn({ server, err: error, nested: { link: 'https://h/?access_token=SECRET4' } }, 'read');
    logger.info('fetching %s', 'https://h.example.com/?token=SECRET5');
    logger.info(`polling https://u:SECRET6@h.example.com`);
    const output = lines.join('');
    for (let i = 1; i <= 6; i++) expect(output).not.toMatch(new RegExp(`SECRET${i}(?!\\d)`));
    expect(output).toContain('https://[REDACTED]@api.example.com:6443');
    expect(output).toContain('sig=[REDACTED]&v=1');
    expect(output).toContain('fetching https://h.example.com/?token=[REDACTED]');
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

describe('lazyChildLoggerFactory', () => {
  it('makes the child only when something is logged at an enabled level', () => {
    const { lines, stream } = capture();
    const logger = createLogger('info', stream);
    let children = 0;
    const child = logger.child.bind(logger);
    logger.child = (bindings, options) => {
      children += 1;
      return child(bindings, options);
    };

    const quiet = lazyChildLoggerFactory(logger, { reqId: 'r1' });
    quiet.debug({ a: 1 }, 'not at info');
    expect(children).toBe(0);
    expect(lines).toEqual([]);

    const used = lazyChildLoggerFactory(logger, { reqId: 'r2', token: 'SECRET5' });
    used.info({ route: '/x' }, 'logged');
    used.warn('again');
    expect(children).toBe(1);
    expect(lines).toHaveLength(2);
    const first = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(first).toMatchObject({ reqId: 'r2', route: '/x', msg: 'logged', token: REDACTED });
    expect(lines.join('')).not.toContain('SECRET5');
  });
});
