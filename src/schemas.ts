/**
 * The JSON Schemas in schemas/, compiled once each with ajv (and the formats they use). The
 * config loader, the Pipeline check and ingress all validate through here. The files are
 * generated from the TypeBox declarations in src/shapes (`npm run gen:schemas`); the gateway
 * reads the files, so what it validates is what it ships.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { packagePath } from './paths.js';
import { unsafeCharacterOf } from './text/text.js';
import { isRfc3339 } from './time/kube-time.js';

/** The schema files the gateway validates against. */
export type SchemaFile =
  | 'authorization.schema.json'
  | 'config.schema.json'
  | 'flux-event.schema.json'
  | 'pipeline.schema.json'
  | 'promotion-alert.schema.json'
  | 'promotion-train.schema.json'
  | 'routes.schema.json'
  | 'what-if-policy.schema.json';

/** Parses a file of schemas/ (e.g. to register it with fastify). */
export function readSchema(file: SchemaFile): Record<string, unknown> {
  return JSON.parse(readFileSync(packagePath('schemas', file), 'utf8')) as Record<string, unknown>;
}

/** The format of text a person writes (a halt's reason, an approval's comment). */
export const PLAIN_TEXT_FORMAT = 'plain-text';

/**
 * Adds the gateway's formats to an ajv that has ajv-formats' (fastify's adds them itself):
 * `date-time` as isRfc3339 checks it, `plain-text` as unsafeCharacterOf does.
 */
export function addGatewayFormats(ajv: Ajv): void {
  // Replaces ajv-formats' date-time (which takes a space for `T`, `+0100` and `23:59:60`) so
  // that a body's date is judged as a signed statement's is.
  ajv.addFormat('date-time', { type: 'string', validate: isRfc3339 });
  ajv.addFormat(PLAIN_TEXT_FORMAT, {
    type: 'string',
    validate: (text: string) => unsafeCharacterOf(text) === undefined,
  });
}

/** Compiles a file of schemas/ with ajv `options`, ajv-formats' formats and the gateway's. */
export function compileSchema<T>(file: SchemaFile, options: Options): ValidateFunction<T> {
  const ajv = new Ajv(options);
  // ajv-formats is CommonJS: under NodeNext its default import is the module object.
  addFormats.default(ajv);
  addGatewayFormats(ajv);
  return ajv.compile<T>(readSchema(file));
}
