/**
 * The JSON Schemas in schemas/, compiled once each with ajv (and the formats they use). The
 * config loader, the Pipeline check and ingress all validate through here.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { packagePath } from './paths.js';

/** The schema files the gateway validates against. */
export type SchemaFile =
  | 'authorization.schema.json'
  | 'config.schema.json'
  | 'flux-event.schema.json'
  | 'pipeline.schema.json'
  | 'promotion-alert.schema.json'
  | 'routes.schema.json';

/** Parses a file of schemas/ (e.g. to register it with fastify). */
export function readSchema(file: SchemaFile): Record<string, unknown> {
  return JSON.parse(readFileSync(packagePath('schemas', file), 'utf8')) as Record<string, unknown>;
}

/** Compiles a file of schemas/ with ajv `options` and every format ajv-formats knows. */
export function compileSchema<T>(file: SchemaFile, options: Options): ValidateFunction<T> {
  const ajv = new Ajv(options);
  // ajv-formats is CommonJS: under NodeNext its default import is the module object.
  addFormats.default(ajv);
  return ajv.compile<T>(readSchema(file));
}
