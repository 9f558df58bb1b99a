import { writeFileSync } from 'node:fs';
import { tempDir } from '../support/temp-dirs.js';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runServe } from '../../src/serve.js';

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

describe('promotion-gateway serve', () => {
  it('exits 2 naming every bad field, and never echoes a secret value', async () => {
    const dir = tempDir('pg-serve-');
    const file = join(dir, 'config.yaml');
    writeFileSync(
      file,
      [
        'server:',
        '  port: 70000',
        'clusters:',
        '  - name: Dev_Cluster',
        '    hmacKeys: [{ value: super-secret-key-material }]',
        'resync:',
        '  intervalMs: -5',
      ].join('\n'),
    );
    const out = capture();
    const code = await runServe(['--config', file], {}, out.stream);
    expect(code).toBe(2);
    expect(out.text()).toContain('/server/port');
    expect(out.text()).toContain('/clusters/0/name');
    expect(out.text()).toContain('/resync/intervalMs');
    expect(out.text()).not.toContain('super-secret-key-material');
  });

  it('exits 2 when --config is missing', async () => {
    const out = capture();
    expect(await runServe([], {}, out.stream)).toBe(2);
    expect(out.text()).toContain('--config');
  });
});
