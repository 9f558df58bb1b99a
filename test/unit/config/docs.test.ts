/** docs/configuration.md and the example config must keep up with the schema. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/load.js';
import { packagePath } from '../../../src/paths.js';

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  definitions?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  default?: unknown;
}

const schema = JSON.parse(
  readFileSync(packagePath('schemas', 'config.schema.json'), 'utf8'),
) as SchemaNode;
const docs = readFileSync(packagePath('docs', 'configuration.md'), 'utf8');

/** Every property of the schema with its default, wherever it is declared. */
function fields(node: SchemaNode, out: [string, unknown][] = []): [string, unknown][] {
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    out.push([name, child.default]);
    fields(child, out);
  }
  for (const child of Object.values(node.definitions ?? {})) fields(child, out);
  if (typeof node.additionalProperties === 'object') fields(node.additionalProperties, out);
  if (node.items !== undefined) fields(node.items, out);
  return out;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('docs/configuration.md', () => {
  const all = fields(schema).filter(([name]) => name !== '$schema');

  it('finds the schema fields', () => {
    expect(all.length).toBeGreaterThan(40);
  });

  it.each(all.map(([name]) => name))('documents `%s`', (name) => {
    // Nested fields may be written with their parent, as in `retry.maxAttempts`.
    expect(docs).toMatch(new RegExp(`\`([a-zA-Z]+\\.)*${escape(name)}(\\.[a-zA-Z]+)*\``));
  });

  it.each(all.filter(([, value]) => value !== undefined && typeof value !== 'object'))(
    'gives `%s` its default %s',
    (name, value) => {
      const cell = (text: string) => String.raw`\|\s*` + '`' + text + '`' + String.raw`\s*`;
      const row = new RegExp(
        cell(String.raw`([a-z]+\.)?` + escape(name)) + cell(escape(String(value))) + String.raw`\|`,
      );
      expect(docs).toMatch(row);
    },
  );
});

describe('manifests/examples/config.yaml', () => {
  it('is valid except for the secret file that only exists in a real deployment', () => {
    const env = {
      PROD_EU_HMAC_KEY: 'current',
      PROD_EU_HMAC_KEY_NEXT: 'next',
      DEPLOY_BOT_WEBHOOK_SECRET: 'whsec',
    };
    let problems: readonly string[] = [];
    try {
      loadConfig({ file: packagePath('manifests', 'examples', 'config.yaml'), env });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems = error.problems;
    }
    expect(problems).toEqual([
      'config /clusters/0/hmacKeys/0/file: cannot read "/etc/promotion-gateway/hmac/management/token" (ENOENT)',
    ]);
  });
});
