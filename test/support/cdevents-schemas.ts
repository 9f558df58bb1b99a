/**
 * The vendored CDEvents v0.5.1 schemas (test/fixtures/cdevents) compiled with ajv's draft
 * 2020-12 build and ajv-formats, as a CDEvents consumer validates: `validateCDEvent` picks the
 * schema by the event's `context.type` and answers the errors, none for a valid event.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { packagePath } from '../../src/paths.js';

/** Where the schemas and conformance examples are. */
export const CDEVENTS_FIXTURES = packagePath('test', 'fixtures', 'cdevents');

type Json = Record<string, unknown>;

function readJson(path: string): Json {
  return JSON.parse(readFileSync(path, 'utf8')) as Json;
}

/** Each event type's validator, by the type its schema allows (`dev.cdevents.…`). */
function compileAll(): Map<string, ValidateFunction> {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats.default(ajv);
  const links = join(CDEVENTS_FIXTURES, 'schemas', 'links');
  for (const file of readdirSync(links)) ajv.addSchema(readJson(join(links, file)));
  const byType = new Map<string, ValidateFunction>();
  const dir = join(CDEVENTS_FIXTURES, 'schemas');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const schema = readJson(join(dir, file));
    const context = (schema.properties as Json).context as Json;
    const type = ((context.properties as Json).type as { enum: string[] }).enum[0];
    if (type !== undefined) byType.set(type, ajv.compile(schema));
  }
  return byType;
}

let validators: Map<string, ValidateFunction> | undefined;

/** The event types the vendored schemas define. */
export function cdEventTypes(): string[] {
  validators ??= compileAll();
  return [...validators.keys()];
}

/**
 * The schema errors of `event` (parsed JSON) against the schema of its `context.type`; an
 * unknown type is an error too. [] when it validates.
 */
export function validateCDEvent(event: unknown): string[] {
  validators ??= compileAll();
  const type = (event as { context?: { type?: unknown } } | null)?.context?.type;
  const validate = typeof type === 'string' ? validators.get(type) : undefined;
  if (validate === undefined) return [`no vendored schema for type ${String(type)}`];
  if (validate(event)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? e.keyword}`);
}

/** The specification's conformance example of each vendored event type, by file name. */
export function conformanceExamples(): [string, Json][] {
  const dir = join(CDEVENTS_FIXTURES, 'conformance');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => [f, readJson(join(dir, f))]);
}
