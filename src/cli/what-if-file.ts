/**
 * The policy file of `promotion-gateway what-if --policy FILE`: YAML or JSON, checked against
 * schemas/what-if-policy.schema.json (as the gateway checks a `POST /v1/what-if` body), then
 * compiled (evaluation/what-if-policy.ts). Every problem is one line naming its place.
 */
import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { parse } from 'yaml';
import { compileSchema } from '../schemas.js';
import {
  compileWhatIfPolicy,
  type WhatIfPolicy,
  type WhatIfPolicyInput,
} from '../evaluation/what-if-policy.js';

/** A policy file that cannot be used: each line names a place in it and what is wrong there. */
export class PolicyFileError extends Error {
  override readonly name = 'PolicyFileError';
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}

let compiled: ValidateFunction<WhatIfPolicyInput> | undefined;

/** The file at `path` as a compiled policy; a PolicyFileError when it cannot be read or used. */
export function readPolicyFile(path: string): WhatIfPolicy {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new PolicyFileError([`cannot read the file (${code})`]);
  }
  return policyOfText(text);
}

/** `text` (YAML, or JSON, which is YAML) as a compiled policy, or a PolicyFileError. */
export function policyOfText(text: string): WhatIfPolicy {
  let data: unknown;
  try {
    data = parse(text);
  } catch (error) {
    const first = error instanceof Error ? (error.message.split('\n')[0] ?? '') : '';
    throw new PolicyFileError([`not YAML or JSON: ${first}`]);
  }
  compiled ??= compileSchema<WhatIfPolicyInput>('what-if-policy.schema.json', {
    allErrors: true,
    strict: true,
    strictRequired: false,
  });
  // An empty file is an empty policy: it proposes nothing.
  const input = data ?? {};
  if (!compiled(input)) throw new PolicyFileError(schemaProblems(compiled.errors ?? []));
  const result = compileWhatIfPolicy(input);
  if (!result.ok) throw new PolicyFileError(result.problems);
  return result.policy;
}

/** Ajv's errors as lines: `/pipelines/0/promotion/sok: is not a field here`. */
function schemaProblems(errors: readonly ErrorObject[]): string[] {
  const lines = errors
    // A branch of an either-or says less than the either-or itself.
    .filter((e) => !/\/(anyOf|oneOf)\/\d+\//.test(e.schemaPath))
    .map((e) => {
      const at = e.instancePath === '' ? '(top)' : e.instancePath;
      if (e.keyword === 'additionalProperties')
        return `${at}/${String(e.params.additionalProperty)}: is not a field here`;
      if (e.keyword === 'anyOf') return `${at}: needs name or selector`;
      if (e.keyword === 'oneOf') return `${at}: needs exactly one of rrule and cron`;
      return `${at}: ${e.message ?? 'is invalid'}`;
    });
  return [...new Set(lines)];
}
