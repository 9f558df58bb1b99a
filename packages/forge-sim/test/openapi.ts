/**
 * GitHub's published OpenAPI description (@octokit/openapi, api.github.com) as a contract: every
 * simulated GitHub answer a test reads is validated against the schema of that operation and
 * status, so the simulator cannot drift from the real API unnoticed. Answers with a status the
 * operation does not list (401, 429, a 403 rate limit) are validated against `basic-error`, the
 * schema GitHub documents for its error bodies.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

type Json = Record<string, unknown>;

interface OpenApiOperation {
  operationId: string;
  responses: Record<string, { content?: Record<string, { schema?: unknown }>; $ref?: string }>;
}

/** The description's file: the public api.github.com one (not GHES, not GHEC). */
export function githubDescriptionPath(): string {
  const pkg = createRequire(import.meta.url).resolve('@octokit/openapi/package.json');
  return join(dirname(pkg), 'generated', 'api.github.com.json');
}

/**
 * OpenAPI 3.0 schema -> JSON Schema ajv understands: `nullable: true` becomes a null type (or an
 * anyOf with null where there is no `type`, e.g. beside `$ref` or `allOf`), and local references
 * become absolute so response schemas compiled apart still reach the components.
 */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (typeof node !== 'object' || node === null) return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === '$ref' && typeof v === 'string') out[k] = v.replace(/^#\//, 'github#/');
    else out[k] = toJsonSchema(v);
  }
  if (out.nullable !== true) return out;
  delete out.nullable;
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...(out.enum as unknown[]), null];
    return out;
  }
  return { anyOf: [out, { type: 'null' }] };
}

/** Validates simulated GitHub answers and records which operations and statuses were checked. */
export class GithubContract {
  readonly version: string;
  private readonly ajv: Ajv;
  private readonly paths: {
    template: string;
    pattern: RegExp;
    ops: Record<string, OpenApiOperation>;
  }[];
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly responses: Record<string, Json>;
  /** `operationId status` -> how many answers were validated. */
  readonly checked = new Map<string, number>();

  constructor() {
    const doc = JSON.parse(readFileSync(githubDescriptionPath(), 'utf8')) as Json;
    this.version = String((doc.info as Json).version);
    const components = doc.components as Json;
    this.responses = toJsonSchema(components.responses) as Record<string, Json>;
    this.ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(this.ajv);
    this.ajv.addSchema({
      $id: 'github',
      components: { schemas: toJsonSchema(components.schemas) },
    });
    this.paths = Object.entries(doc.paths as Record<string, Record<string, OpenApiOperation>>)
      .map(([template, ops]) => {
        const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
        return { template, pattern: new RegExp(`^${source}$`), ops };
      })
      // Literal segments beat parameters: /pulls/comments before /pulls/{pull_number}.
      .sort(
        (a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0),
      );
  }

  /** The operation serving `method` on `path` (path relative to the REST root). */
  operation(method: string, path: string): OpenApiOperation {
    const found = this.paths.find((p) => p.pattern.test(path) && p.ops[method.toLowerCase()]);
    const op = found?.ops[method.toLowerCase()];
    if (op === undefined) throw new Error(`no operation for ${method} ${path} in the description`);
    return op;
  }

  private schemaFor(op: OpenApiOperation, status: number): { key: string; schema: unknown } {
    const listed = op.responses[String(status)];
    if (listed !== undefined) {
      const response =
        listed.$ref === undefined
          ? (toJsonSchema(listed) as Json)
          : this.responses[listed.$ref.split('/').at(-1) ?? ''];
      const content = response?.content as Record<string, { schema?: unknown }> | undefined;
      const schema = content?.['application/json']?.schema;
      if (schema !== undefined) return { key: `${op.operationId} ${String(status)}`, schema };
    }
    if (status < 400)
      throw new Error(`${op.operationId} documents no JSON body for ${String(status)}`);
    return {
      key: `${op.operationId} ${String(status)} (basic-error)`,
      schema: { $ref: 'github#/components/schemas/basic-error' },
    };
  }

  /** Throws with ajv's errors unless `body` fits the documented answer. */
  validate(method: string, path: string, status: number, body: unknown): void {
    const op = this.operation(method, path);
    const { key, schema } = this.schemaFor(op, status);
    let validate = this.cache.get(key);
    if (validate === undefined) {
      validate = this.ajv.compile(schema as Json);
      this.cache.set(key, validate);
    }
    if (!validate(body)) {
      const errors = (validate.errors ?? [])
        .slice(0, 10)
        .map((e) => `${e.instancePath} ${e.message ?? ''}`);
      throw new Error(
        `${key}: the simulated answer does not fit GitHub's description:\n${errors.join('\n')}`,
      );
    }
    this.checked.set(key, (this.checked.get(key) ?? 0) + 1);
  }
}
