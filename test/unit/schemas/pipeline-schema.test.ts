/**
 * schemas/pipeline.schema.json must say exactly what the Pipeline CRD we ship says, and the CRD
 * we ship must be weave's CRD plus nothing but our optional fields (a drop-in replacement).
 *
 * Normalisation: `description`, `title`, `$schema`, `$comment`, `$id` and `x-kubernetes-*` are
 * dropped on both sides (documentation and API-server-only hints). `default` is kept on both:
 * ajv treats it as an annotation unless useDefaults is on, so the two must still agree on it.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { packagePath } from '../../../src/paths.js';

type Json = Record<string, unknown>;

const DROPPED = new Set(['description', 'title', '$schema', '$comment', '$id']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions']);
const SCHEMA_LISTS = new Set(['anyOf', 'oneOf', 'allOf']);
const SCHEMA_VALUES = new Set(['items', 'additionalProperties', 'not']);

/** Walks schema positions only, so a property literally named "description" would survive. */
function normalise(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key) || key.startsWith('x-kubernetes-')) continue;
    if (SCHEMA_MAPS.has(key))
      out[key] = Object.fromEntries(
        Object.entries(value as Json).map(([name, sub]) => [name, normalise(sub)]),
      );
    else if (SCHEMA_LISTS.has(key)) out[key] = (value as unknown[]).map(normalise);
    else if (SCHEMA_VALUES.has(key)) out[key] = normalise(value);
    else out[key] = value;
  }
  return out;
}

function readYaml(path: string): Json {
  return parse(readFileSync(path, 'utf8')) as Json;
}

function openApiOf(crd: Json): Json {
  return (crd as { spec: { versions: { schema: { openAPIV3Schema: Json } }[] } }).spec.versions[0]!
    .schema.openAPIV3Schema;
}

const shippedCrd = readYaml(
  packagePath('manifests', 'crd', 'pipelines.weave.works_pipelines.yaml'),
);
const weaveCrd = readYaml(
  packagePath(
    'test',
    'fixtures',
    'weave-gitops',
    'with-promotion-status',
    'pipelines.weave.works_pipelines.yaml',
  ),
);
const jsonSchema = JSON.parse(
  readFileSync(packagePath('schemas', 'pipeline.schema.json'), 'utf8'),
) as Json;

function compile(schema: Json): ValidateFunction {
  const ajv = new Ajv({ allErrors: true, strict: true });
  addFormats.default(ajv);
  return ajv.compile(schema);
}

const byJsonSchema = compile(jsonSchema);
// The CRD's schema carries no $schema: ajv reads it as draft-07, like the JSON file.
const byCrd = compile(normalise(openApiOf(shippedCrd)) as Json);

function samplePipelines(): { file: string; object: Json }[] {
  const dir = packagePath('test', 'fixtures', 'weave-gitops', 'samples');
  return readdirSync(dir).flatMap((file) =>
    parseAllDocuments(readFileSync(join(dir, file), 'utf8'))
      .map((doc) => doc.toJS() as Json | null)
      .filter((object): object is Json => object?.kind === 'Pipeline')
      .map((object) => ({ file, object })),
  );
}

function pipeline(spec: Json = {}, status?: Json): Json {
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name: 'app', namespace: 'default' },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'app' },
      environments: [
        { name: 'dev', targets: [{ namespace: 'dev' }] },
        {
          name: 'prod',
          targets: [{ namespace: 'prod', clusterRef: { kind: 'GitopsCluster', name: 'prod' } }],
        },
      ],
      ...spec,
    },
    ...(status === undefined ? {} : { status }),
  };
}

function promotionStatus(record: Json): Json {
  return {
    environments: {
      prod: {
        promotion: {
          revision: '1.2.3',
          lastAttemptedTime: '2026-11-21T10:00:00Z',
          succeeded: false,
          ...record,
        },
      },
    },
  };
}

const webhookStrategy = { strategy: { webhook: { endpoint: 'ci' } } };

const valid: [string, Json][] = [
  [
    'our approval gate and approval records',
    pipeline(
      {
        environments: [
          {
            name: 'prod',
            targets: [{ namespace: 'prod' }],
            promotion: {
              strategy: { notification: {} },
              approval: { minApprovals: 2, approvers: ['alice', 'group:sre', 'ci:e2e'] },
            },
          },
        ],
      },
      {
        environments: {
          prod: {
            approvals: [
              {
                principal: 'alice',
                kind: 'human',
                decision: 'approve',
                revision: '1.2.3',
                time: '2026-11-21T10:00:00Z',
                jti: 'a1',
                expiresAt: '2026-11-21T10:15:00Z',
                statement: 'eyJ.eyJ.sig',
              },
            ],
          },
        },
      },
    ),
  ],
  [
    'a break-glass quorum and a break-glass record',
    pipeline(
      {
        environments: [
          {
            name: 'prod',
            targets: [{ namespace: 'prod' }],
            promotion: {
              strategy: { notification: {} },
              breakGlass: { minApprovals: 3, approvers: ['group:sre', 'ci:e2e'] },
            },
          },
        ],
      },
      {
        environments: {
          prod: {
            approvals: [
              {
                principal: 'alice',
                kind: 'human',
                decision: 'break-glass',
                revision: '1.2.3',
                time: '2026-11-21T10:00:00Z',
                comment: 'incident 42: hotfix',
              },
            ],
          },
        },
      },
    ),
  ],
  [
    'our target record fields',
    pipeline(
      {},
      {
        environments: {
          dev: {
            targets: [
              {
                clusterAppRef: { apiVersion: 'v2', kind: 'HelmRelease', name: 'app' },
                ready: true,
                revision: '1.2.3',
                observedTime: '2026-11-21T10:00:00.000Z',
                unannounced: true,
              },
            ],
          },
        },
      },
    ),
  ],
  [
    'our external checks',
    withChecks([
      {
        name: 'health',
        http: {
          url: 'https://status.example.com/api/{{revision}}',
          expect: { status: 200, json: { path: '/status', equals: 'green' } },
          timeoutSeconds: 5,
          cacheSeconds: 120,
          secretRef: { name: 'status-token' },
        },
      },
      { name: 'ci', commitStatus: { contexts: ['ci/e2e'], ref: 'v{{revision}}' } },
      {
        name: 'app-ci',
        commitStatus: {
          repository: {
            type: 'gitlab',
            url: 'https://gitlab.example.com/acme/app',
            secretRef: { name: 'gitlab-token' },
          },
        },
      },
    ]),
  ],
  ['our soak, per environment', withSoak('1h30m')],
  ['our soak, in Flux units', withSoak('1.5h250ms')],
  [
    'our soak, pipeline-wide',
    pipeline({ promotion: { strategy: { notification: {} }, soak: { duration: '30m' } } }),
  ],
  [
    'our healthySince record',
    pipeline(
      {},
      {
        environments: {
          dev: { healthySince: { revision: '1.2.3', time: '2026-11-21T10:00:00.000Z' } },
        },
      },
    ),
  ],
  [
    'our verified records',
    pipeline(
      {},
      {
        environments: {
          dev: {
            verified: [
              { revision: '1.2.3', time: '2026-11-21T10:00:00.000Z' },
              { revision: '1.2.4', time: '2026-11-22T10:00:00.123Z' },
            ],
          },
        },
      },
    ),
  ],
  [
    'our promotion windows, per environment and pipeline-wide',
    pipeline({
      promotion: { strategy: { notification: {} }, windows: [window({ cron: '0 18 * * FRI' })] },
      environments: [
        {
          name: 'prod',
          targets: [{ namespace: 'prod' }],
          promotion: {
            strategy: { notification: {} },
            windows: [
              window({
                name: 'hours',
                type: 'Allow',
                rrule: 'DTSTART;TZID=Europe/Berlin:20250106T090000\nRRULE:FREQ=WEEKLY;BYDAY=MO,TU',
                duration: 'PT8H',
                authorizationsPassFreeze: true,
              }),
              window({ name: 'year-end', cron: '0 0 20 12 *', duration: 'P17D' }),
              window({ name: 'short', cron: '*/30 * * * * *', duration: '1m30s' }),
            ],
          },
        },
      ],
    }),
  ],
  ['our webhook strategy, pipeline-wide', pipeline({ promotion: webhookStrategy })],
  [
    'our webhook strategy, per environment',
    pipeline({
      environments: [{ name: 'dev', targets: [{ namespace: 'dev' }], promotion: webhookStrategy }],
    }),
  ],
  [
    "weave's promotion record, unchanged",
    pipeline({}, promotionStatus({ pullRequest: { state: 'open', url: 'https://x/1' } })),
  ],
  [
    'our promotion record fields',
    pipeline(
      {},
      promotionStatus({
        attempt: 2,
        phase: 'Claimed',
        claimedBy: 'gw-1',
        message: 'ok',
        retryable: false,
      }),
    ),
  ],
  [
    'our halts: one in force across Pipelines, by statement, and a tombstone',
    pipeline(
      {},
      {
        halts: [
          halt({
            selector: 'team=payments,tier in (api,web)',
            jti: 'a1b2',
            credentialExpiresAt: '2026-11-21T10:10:00Z',
            statement: 'eyJhbGciOiJFZERTQSJ9.e30.c2ln',
            expiresAt: '2026-11-22T10:00:00Z',
          }),
          halt({ id: 'h2', liftedAt: '2026-11-21T10:05:00Z', liftedBy: 'bob', jti: 'c3' }),
        ],
      },
    ),
  ],
  [
    'conditions',
    pipeline(
      {},
      {
        observedGeneration: 3,
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'Reconciled',
            message: '',
            lastTransitionTime: '2026-11-21T10:00:00Z',
          },
        ],
      },
    ),
  ],
];

/** A halt record of prod by alice, with `fields` added or replaced. */
function halt(fields: Json): Json {
  return {
    id: 'h1',
    environment: 'prod',
    principal: 'alice',
    kind: 'human',
    reason: 'incident 42',
    time: '2026-11-21T10:00:00Z',
    ...fields,
  };
}

/** A Pipeline whose status holds `halts`. */
function withHalts(halts: Json[]): Json {
  return pipeline({}, { halts });
}

/** A window spec: a weekend freeze in Berlin unless `fields` say otherwise. */
function window(fields: Json): Json {
  return { name: 'weekend', type: 'Deny', timeZone: 'Europe/Berlin', duration: '62h', ...fields };
}

/** A Pipeline whose pipeline-wide promotion has the one window `fields` describe. */
function withWindow(fields: Json): Json {
  return pipeline({ promotion: { strategy: { notification: {} }, windows: [window(fields)] } });
}

/** A Pipeline whose prod environment's promotion names `checks`. */
function withChecks(checks: unknown[]): Json {
  return pipeline({
    environments: [
      {
        name: 'prod',
        targets: [{ namespace: 'prod' }],
        promotion: { strategy: { notification: {} }, checks },
      },
    ],
  });
}

/** A Pipeline whose prod environment soaks `duration` (undefined: a soak without one). */
function withSoak(duration: string | undefined): Json {
  return pipeline({
    environments: [
      { name: 'dev', targets: [{ namespace: 'dev' }] },
      {
        name: 'prod',
        targets: [{ namespace: 'prod' }],
        promotion: { strategy: { notification: {} }, soak: { duration } },
      },
    ],
  });
}

const invalid: [string, Json][] = [
  ['no appRef', pipeline({ appRef: undefined })],
  ['target without namespace', pipeline({ environments: [{ name: 'dev', targets: [{}] }] })],
  [
    'clusterRef of another kind',
    pipeline({
      environments: [
        { name: 'd', targets: [{ namespace: 'd', clusterRef: { kind: 'Cluster', name: 'x' } }] },
      ],
    }),
  ],
  [
    'unknown pull-request provider',
    pipeline({
      promotion: {
        strategy: {
          'pull-request': {
            type: 'bitbucket',
            url: 'https://x',
            baseBranch: 'main',
            secretRef: { name: 's' },
          },
        },
      },
    }),
  ],
  ['webhook without endpoint', pipeline({ promotion: { strategy: { webhook: {} } } })],
  [
    'webhook with empty endpoint',
    pipeline({ promotion: { strategy: { webhook: { endpoint: '' } } } }),
  ],
  ['promotion without strategy', pipeline({ promotion: { manual: true } })],
  [
    'an approval gate asking for none',
    pipeline({
      environments: [
        {
          name: 'prod',
          targets: [{ namespace: 'prod' }],
          promotion: { strategy: { notification: {} }, approval: { minApprovals: 0 } },
        },
      ],
    }),
  ],
  [
    'a break-glass quorum of none',
    pipeline({
      environments: [
        {
          name: 'prod',
          targets: [{ namespace: 'prod' }],
          promotion: { strategy: { notification: {} }, breakGlass: { minApprovals: 0 } },
        },
      ],
    }),
  ],
  [
    'a break-glass approver that is not text',
    pipeline({
      environments: [
        {
          name: 'prod',
          targets: [{ namespace: 'prod' }],
          promotion: { strategy: { notification: {} }, breakGlass: { approvers: [''] } },
        },
      ],
    }),
  ],
  [
    'an approval record with an unknown decision',
    pipeline(
      {},
      {
        environments: {
          prod: {
            approvals: [
              {
                principal: 'alice',
                kind: 'human',
                decision: 'override',
                revision: '1.2.3',
                time: '2026-11-21T10:00:00Z',
              },
            ],
          },
        },
      },
    ),
  ],
  [
    'an approval record without principal',
    pipeline(
      {},
      {
        environments: {
          prod: {
            approvals: [
              { kind: 'human', decision: 'approve', revision: '1', time: '2026-11-21T10:00:00Z' },
            ],
          },
        },
      },
    ),
  ],
  [
    'a target record whose unannounced mark is not a boolean',
    pipeline(
      {},
      {
        environments: {
          dev: {
            targets: [
              {
                clusterAppRef: { apiVersion: 'v2', kind: 'HelmRelease', name: 'app' },
                ready: true,
                unannounced: 'yes',
              },
            ],
          },
        },
      },
    ),
  ],
  [
    'a check with both kinds',
    withChecks([{ name: 'x', http: { url: 'https://a' }, commitStatus: {} }]),
  ],
  ['a check of no kind', withChecks([{ name: 'x' }])],
  ['a check without a name', withChecks([{ http: { url: 'https://a' } }])],
  ['a check name that is no DNS label', withChecks([{ name: 'E2E', commitStatus: {} }])],
  ['an HTTP check of another scheme', withChecks([{ name: 'x', http: { url: 'file:///etc' } }])],
  ['a cache of 0 s', withChecks([{ name: 'x', commitStatus: { cacheSeconds: 0 } }])],
  [
    'a timeout over 60 s',
    withChecks([{ name: 'x', http: { url: 'https://a', timeoutSeconds: 61 } }]),
  ],
  [
    'a JSON expectation without its value',
    withChecks([{ name: 'x', http: { url: 'https://a', expect: { json: { path: 'status' } } } }]),
  ],
  ['a ref with a space', withChecks([{ name: 'x', commitStatus: { ref: 'v 1' } }])],
  [
    'a check repository on bitbucket',
    withChecks([
      {
        name: 'x',
        commitStatus: {
          repository: { type: 'bitbucket-server', url: 'https://b', secretRef: { name: 's' } },
        },
      },
    ]),
  ],
  ['a soak in days (Flux has no d unit)', withSoak('1d')],
  ['a soak in microseconds', withSoak('5us')],
  ['a soak without unit', withSoak('30')],
  ['a negative soak', withSoak('-5m')],
  ['a soak with spaces', withSoak('1h 30m')],
  ['a soak without duration', withSoak(undefined)],
  [
    'a healthySince record without time',
    pipeline({}, { environments: { dev: { healthySince: { revision: '1.2.3' } } } }),
  ],
  [
    'a healthySince record whose time is no time',
    pipeline(
      {},
      { environments: { dev: { healthySince: { revision: '1.2.3', time: 'an hour ago' } } } },
    ),
  ],
  [
    'a verified record without time',
    pipeline({}, { environments: { dev: { verified: [{ revision: '1.2.3' }] } } }),
  ],
  [
    'more than 20 verified records',
    pipeline(
      {},
      {
        environments: {
          dev: {
            verified: Array.from({ length: 21 }, (_, i) => ({
              revision: `1.0.${String(i)}`,
              time: '2026-11-21T10:00:00Z',
            })),
          },
        },
      },
    ),
  ],
  ['a window with both rrule and cron', withWindow({ cron: '0 9 * * *', rrule: 'x' })],
  ['a window with neither rrule nor cron', withWindow({})],
  ['a window of another type', withWindow({ cron: '0 9 * * *', type: 'deny' })],
  ['a window without a time zone', withWindow({ cron: '0 9 * * *', timeZone: undefined })],
  ['a window time zone with spaces', withWindow({ cron: '0 9 * * *', timeZone: 'Europe/ Berlin' })],
  ['a window duration in days, Go style', withWindow({ cron: '0 9 * * *', duration: '2d' })],
  ['a window duration in months', withWindow({ cron: '0 9 * * *', duration: 'P1M' })],
  ['an empty calendar duration', withWindow({ cron: '0 9 * * *', duration: 'PT' })],
  ['a window name that is no DNS label', withWindow({ cron: '0 9 * * *', name: 'Freeze' })],
  ['a halt tombstone without liftedBy', withHalts([halt({ liftedAt: '2026-11-21T10:05:00Z' })])],
  ['a halt liftedBy without liftedAt', withHalts([halt({ liftedBy: 'bob' })])],
  ['a halt liftedAt that is no time', withHalts([halt({ liftedAt: 'now', liftedBy: 'bob' })])],
  ['a halt credential expiry that is no time', withHalts([halt({ credentialExpiresAt: 'soon' })])],
  ['an empty halt jti', withHalts([halt({ jti: '' })])],
  ['a halt statement over 4096 characters', withHalts([halt({ statement: 'x'.repeat(4097) })])],
  ['an empty halt selector', withHalts([halt({ selector: '' })])],
  [
    'more than 128 halt records',
    withHalts(Array.from({ length: 129 }, (_, i) => halt({ id: `h${String(i)}` }))),
  ],
  ['attempt 0', pipeline({}, promotionStatus({ attempt: 0 }))],
  ['attempt not an integer', pipeline({}, promotionStatus({ attempt: 1.5 }))],
  ['unknown phase', pipeline({}, promotionStatus({ phase: 'Running' }))],
  ['record without succeeded', pipeline({}, promotionStatus({ succeeded: undefined }))],
  ['bad lastAttemptedTime', pipeline({}, promotionStatus({ lastAttemptedTime: 'yesterday' }))],
  [
    'condition status Maybe',
    pipeline(
      {},
      {
        conditions: [
          {
            type: 'Ready',
            status: 'Maybe',
            reason: 'R',
            message: '',
            lastTransitionTime: '2026-11-21T10:00:00Z',
          },
        ],
      },
    ),
  ],
];

/** JSON round trip drops the `undefined` fields the cases above use to delete a key. */
function plain(object: Json): Json {
  return JSON.parse(JSON.stringify(object)) as Json;
}

describe('schemas/pipeline.schema.json', () => {
  it('is the shipped CRD openAPIV3Schema, normalised', () => {
    expect(normalise(jsonSchema)).toEqual(normalise(openApiOf(shippedCrd)));
  });

  it("is draft-07, ajv's default dialect", () => {
    expect(jsonSchema.$schema).toBe('http://json-schema.org/draft-07/schema#');
  });

  it('accepts every sample Pipeline, as the CRD does', () => {
    const samples = samplePipelines();
    expect(samples.length).toBeGreaterThanOrEqual(3);
    for (const { file, object } of samples) {
      expect([file, byJsonSchema(object), byCrd(object)]).toEqual([file, true, true]);
    }
  });

  it.each(valid)('accepts %s, as the CRD does', (_name, object) => {
    expect([byJsonSchema(plain(object)), byCrd(plain(object))]).toEqual([true, true]);
  });

  it.each(invalid)('rejects %s, as the CRD does', (_name, object) => {
    expect([byJsonSchema(plain(object)), byCrd(plain(object))]).toEqual([false, false]);
  });
});

/** The schema object at `path` below `schema`, through nested `properties`. */
function dig(schema: Json, ...path: string[]): Json {
  return path.reduce<Json>((node, key) => node[key] as Json, schema);
}

/**
 * Deletes our optional additions, leaving what weave's CRD should be. Required lists are not
 * touched, so equality also proves that none of our fields is required.
 */
function withoutOurAdditions(crd: Json): Json {
  const copy = structuredClone(crd);
  // Our printer columns (Pending, Message) follow weave's Ready and Status.
  for (const version of (copy.spec as { versions: Json[] }).versions) {
    const columns = version.additionalPrinterColumns as Json[] | undefined;
    if (columns === undefined) continue;
    version.additionalPrinterColumns = columns.filter(
      (c) => !['Pending', 'Message'].includes(c.name as string),
    );
  }
  const spec = dig(openApiOf(copy), 'properties', 'spec', 'properties');
  const strategies = [
    dig(spec, 'promotion', 'properties', 'strategy', 'properties'),
    dig(
      spec,
      'environments',
      'items',
      'properties',
      'promotion',
      'properties',
      'strategy',
      'properties',
    ),
  ];
  for (const strategy of strategies) delete strategy.webhook;
  const envPromotion = dig(spec, 'environments', 'items', 'properties', 'promotion', 'properties');
  delete envPromotion.approval;
  delete envPromotion.breakGlass;
  delete envPromotion.checks;
  delete envPromotion.rollback;
  delete envPromotion.soak;
  delete dig(spec, 'promotion', 'properties').soak;
  delete envPromotion.drift;
  delete dig(spec, 'promotion', 'properties').drift;
  delete envPromotion.windows;
  delete dig(spec, 'promotion', 'properties').windows;
  const record = dig(
    openApiOf(copy),
    'properties',
    'status',
    'properties',
    'environments',
    'additionalProperties',
    'properties',
    'promotion',
    'properties',
  );
  delete record.attempt;
  delete record.phase;
  delete record.claimedBy;
  delete record.retryable;
  delete record.retryAfterTime;
  delete record.message;
  delete record.deadlineTime;
  delete record.upstreamVerifiedTime;
  delete record.resolution;
  delete record.redelivery;
  delete record.rollback;
  delete record.wouldHold;
  const environment = dig(
    openApiOf(copy),
    'properties',
    'status',
    'properties',
    'environments',
    'additionalProperties',
    'properties',
  );
  delete environment.approvals;
  delete environment.healthySince;
  delete environment.history;
  delete environment.holds;
  delete environment.verified;
  delete environment.drift;
  delete dig(environment, 'waitingApproval', 'properties').since;
  delete dig(environment, 'waitingApproval', 'properties').preview;
  delete dig(openApiOf(copy), 'properties', 'status', 'properties').halts;
  delete dig(openApiOf(copy), 'properties', 'status', 'properties').outbox;
  const targetRecord = dig(environment, 'targets', 'items', 'properties');
  delete targetRecord.observedTime;
  delete targetRecord.unannounced;
  return copy;
}

describe('manifests/crd/pipelines.weave.works_pipelines.yaml', () => {
  it("is weave's CRD (with promotion status) plus only our optional additions", () => {
    expect(withoutOurAdditions(shippedCrd)).toEqual(weaveCrd);
  });
});
