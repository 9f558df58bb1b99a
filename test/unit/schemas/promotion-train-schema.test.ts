/**
 * schemas/promotion-train.schema.json must say what the PromotionTrain CRD we ship says
 * (test/support/crd-schema.ts normalises both), and both bound the status as the code does.
 * Each case is judged by both schemas, as ajv and kube-sim judge it.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../../../src/paths.js';
import {
  MAX_OBSERVED_COMBINATIONS,
  MAX_TRAIN_MEMBERS,
} from '../../../src/shapes/promotion-train.js';
import { normalise, openApiOf, readYaml, type Json } from '../../support/crd-schema.js';

const crd = readYaml(
  packagePath('manifests', 'crd', 'pipelines.promotion-gateway.dev_promotiontrains.yaml'),
);
const jsonSchema = JSON.parse(
  readFileSync(packagePath('schemas', 'promotion-train.schema.json'), 'utf8'),
) as Json;

function compile(schema: Json): ValidateFunction {
  const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false });
  addFormats.default(ajv);
  return ajv.compile(schema);
}

const byJsonSchema = compile(jsonSchema);
const byCrd = compile(normalise(openApiOf(crd)) as Json);

function train(spec: Json, status?: Json): Json {
  return {
    apiVersion: 'pipelines.promotion-gateway.dev/v1alpha1',
    kind: 'PromotionTrain',
    metadata: { name: 'release', namespace: 'shop' },
    spec,
    ...(status === undefined ? {} : { status }),
  };
}

const T = '2026-11-21T10:00:00.000Z';
const combination = { digest: `sha256:${'a'.repeat(64)}`, members: { api: '2.0.0' } };
const members = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `m${i}` }));

const cases: [string, Json, boolean][] = [
  [
    'members with an order',
    train({ members: [{ name: 'a' }, { name: 'b', dependsOn: ['a'] }] }),
    true,
  ],
  ['a selector', train({ selector: { matchLabels: { train: 'shop' } } }), true],
  ['neither members nor selector', train({}), false],
  ['both', train({ members: [{ name: 'a' }], selector: { matchLabels: { a: 'b' } } }), false],
  ['an empty selector', train({ selector: { matchLabels: {} } }), false],
  ['the most members', train({ members: members(MAX_TRAIN_MEMBERS) }), true],
  ['one member too many', train({ members: members(MAX_TRAIN_MEMBERS + 1) }), false],
  [
    'a status with observed combinations and a release',
    train(
      { members: [{ name: 'api' }] },
      {
        members: ['api'],
        environments: [
          {
            name: 'prod',
            observed: [{ ...combination, observedAt: T }],
            release: { ...combination, state: 'Promoting', startedAt: T, waitingFor: ['api'] },
          },
        ],
      },
    ),
    true,
  ],
  [
    'more observed combinations than kept',
    train(
      { members: [{ name: 'api' }] },
      {
        environments: [
          {
            name: 'prod',
            observed: Array.from({ length: MAX_OBSERVED_COMBINATIONS + 1 }, () => ({
              ...combination,
              observedAt: T,
            })),
          },
        ],
      },
    ),
    false,
  ],
  [
    'a release in an unknown state',
    train(
      { members: [{ name: 'api' }] },
      {
        environments: [{ name: 'prod', release: { ...combination, state: 'Done', startedAt: T } }],
      },
    ),
    false,
  ],
];

describe('the PromotionTrain schema and CRD', () => {
  it.each(cases)('%s: both judge it the same', (_, object, valid) => {
    expect(byJsonSchema(object)).toBe(valid);
    expect(byCrd(object)).toBe(valid);
  });
});
