/**
 * schemas/promotion-alert.schema.json must say exactly what the PromotionAlert CRD we ship
 * says (test/support/crd-schema.ts normalises both), and both must agree with the code: the
 * event types with NOTIFICATION_TYPES, the types with the formats, the status bounds with
 * alert-resource.ts. Each case below is judged by both schemas, as ajv and kube-sim judge it.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { packagePath } from '../../../src/paths.js';
import { NOTIFICATION_TYPES } from '../../../src/notify/notification-event.js';
import { DELIVERY_FORMATS } from '../../../src/notify/delivery-request.js';
import { MAX_RECENT, MAX_STREAMS } from '../../../src/notify/alert-resource.js';
import { normalise, openApiOf, readYaml, type Json } from '../../support/crd-schema.js';

const crd = readYaml(
  packagePath('manifests', 'crd', 'notifications.promotion-gateway.dev_promotionalerts.yaml'),
);
const jsonSchema = JSON.parse(
  readFileSync(packagePath('schemas', 'promotion-alert.schema.json'), 'utf8'),
) as Json;

function compile(schema: Json): ValidateFunction {
  // strictRequired off: spec.anyOf's `required` branches name properties declared beside it.
  const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false });
  addFormats.default(ajv);
  return ajv.compile(schema);
}

const byJsonSchema = compile(jsonSchema);
const byCrd = compile(normalise(openApiOf(crd)) as Json);

function alert(spec: Json = {}, status?: Json): Json {
  return {
    apiVersion: 'notifications.promotion-gateway.dev/v1alpha1',
    kind: 'PromotionAlert',
    metadata: { name: 'hooks', namespace: 'shop' },
    spec: { address: 'https://hooks.example.com/in', ...spec },
    ...(status === undefined ? {} : { status }),
  };
}

const T = '2026-11-21T10:00:00.000Z';

const valid: [string, Json][] = [
  ['an address alone', alert()],
  [
    'a secretRef alone (the Secret gives the address)',
    alert({ address: undefined, secretRef: { name: 'slack-url' } }),
  ],
  ['every type', alert({ type: 'msteams' })],
  ['every event type', alert({ eventTypes: [...NOTIFICATION_TYPES] })],
  [
    'pipelines by name, labels and namespace',
    alert({
      pipelines: [
        { name: 'app' },
        { matchLabels: { team: 'shop', tier: '' } },
        { namespace: 'other' },
      ],
    }),
  ],
  ['a template of 16 KiB', alert({ template: 'x'.repeat(16_384) })],
  ['timeouts in Flux units', alert({ timeout: '1m30s', suspend: true })],
  ['an address with path, query and port', alert({ address: 'http://10.0.0.1:8080/a/b?c=d' })],
  [
    'a whole status',
    alert(
      {},
      {
        observedGeneration: 2,
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'Delivering',
            message: '',
            lastTransitionTime: T,
          },
        ],
        lastDelivery: { id: 'evt_x', type: 'PromotionSucceeded', time: T, result: 'Delivered' },
        backlog: 0,
        oldestUndelivered: T,
        counters: { delivered: 3, failed: 1, superseded: 0, dropped: 0 },
        streams: [{ pipeline: 'shop/app', environment: 'prod', cursor: 'anything', n: 1 }],
        recent: Array.from({ length: 20 }, (_, i) => ({ id: `evt_${i}`, free: { form: true } })),
      },
    ),
  ],
];

const invalid: [string, Json][] = [
  ['neither address nor secretRef', alert({ address: undefined })],
  ['an unknown type', alert({ type: 'discord' })],
  ['a file URL', alert({ address: 'file:///etc/passwd' })],
  ['an address with credentials', alert({ address: 'https://user:pw@hooks.example.com/' })],
  ['an address that is no URL', alert({ address: 'hooks.example.com' })],
  ['a secretRef name that is no DNS name', alert({ secretRef: { name: 'Hooks_1' } })],
  ['a secretRef without name', alert({ secretRef: {} })],
  ['an unknown event type', alert({ eventTypes: ['PromotionQueued'] })],
  ['a pipeline namespace that is no DNS label', alert({ pipelines: [{ namespace: 'a.b' }] })],
  ['a label value with a space', alert({ pipelines: [{ matchLabels: { team: 'a b' } }] })],
  ['a template over 16 KiB', alert({ template: 'x'.repeat(16_385) })],
  ['a timeout in hours', alert({ timeout: '1h' })],
  ['a timeout without unit', alert({ timeout: '15' })],
  ['suspend as text', alert({ suspend: 'yes' })],
  ['a negative backlog', alert({}, { backlog: -1 })],
  ['a counter that is no integer', alert({}, { counters: { delivered: 1.5 } })],
  ['a stream without environment', alert({}, { streams: [{ pipeline: 'shop/app' }] })],
  ['21 recent deliveries', alert({}, { recent: Array.from({ length: 21 }, () => ({})) })],
  [
    'a last delivery without id',
    alert({}, { lastDelivery: { type: 'x', time: T, result: 'Failed' } }),
  ],
  [
    'a condition status Maybe',
    alert(
      {},
      {
        conditions: [
          { type: 'Ready', status: 'Maybe', reason: 'R', message: '', lastTransitionTime: T },
        ],
      },
    ),
  ],
];

/** JSON round trip drops the `undefined` fields the cases above use to delete a key. */
function plain(object: Json): Json {
  return JSON.parse(JSON.stringify(object)) as Json;
}

/** The schema node at `path` below the CRD's openAPIV3Schema, through nested `properties`. */
function crdNode(...path: string[]): Json {
  return path.reduce<Json>((node, key) => node[key] as Json, openApiOf(crd));
}

describe('schemas/promotion-alert.schema.json', () => {
  it('is the shipped CRD openAPIV3Schema, normalised', () => {
    expect(normalise(jsonSchema)).toEqual(normalise(openApiOf(crd)));
  });

  it("is draft-07, ajv's default dialect", () => {
    expect(jsonSchema.$schema).toBe('http://json-schema.org/draft-07/schema#');
  });

  it.each(valid)('accepts %s, as the CRD does', (_name, object) => {
    expect([byJsonSchema(plain(object)), byCrd(plain(object))]).toEqual([true, true]);
  });

  it.each(invalid)('rejects %s, as the CRD does', (_name, object) => {
    expect([byJsonSchema(plain(object)), byCrd(plain(object))]).toEqual([false, false]);
  });

  it('accepts the shipped examples', () => {
    const text = readFileSync(packagePath('manifests', 'examples', 'promotion-alert.yaml'), 'utf8');
    const examples = parseAllDocuments(text).map((d) => d.toJS() as Json);
    expect(examples).toHaveLength(2);
    for (const example of examples) expect(byJsonSchema(example)).toBe(true);
  });
});

describe('manifests/crd/notifications.promotion-gateway.dev_promotionalerts.yaml', () => {
  const spec = ['properties', 'spec', 'properties'];
  const status = ['properties', 'status', 'properties'];

  it('lists exactly the notification types and the delivery formats of the code', () => {
    expect(crdNode(...spec, 'eventTypes', 'items').enum).toEqual([...NOTIFICATION_TYPES]);
    expect(crdNode(...spec, 'type').enum).toEqual([...DELIVERY_FORMATS]);
  });

  it('bounds the status lists as alert-resource.ts says', () => {
    expect(crdNode(...status, 'streams').maxItems).toBe(MAX_STREAMS);
    expect(crdNode(...status, 'recent').maxItems).toBe(MAX_RECENT);
  });

  it('keeps the fields of the engine inside streams and recent, and nowhere else', () => {
    const preserved: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (typeof node !== 'object' || node === null) return;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'x-kubernetes-preserve-unknown-fields') preserved.push(at);
        else walk(value, `${at}/${key}`);
      }
    };
    walk(openApiOf(crd), '');
    // In any order: the CRD lists properties alphabetically, the JSON file as declared.
    expect(preserved.sort()).toEqual([
      '/properties/status/properties/recent/items',
      '/properties/status/properties/streams/items',
    ]);
  });

  it('serves the status subresource and the printer columns', () => {
    const version = (crd.spec as { versions: Json[] }).versions[0]!;
    expect(version.subresources).toEqual({ status: {} });
    const columns = (version.additionalPrinterColumns as { name: string }[]).map((c) => c.name);
    expect(columns).toEqual(['Ready', 'Type', 'Last delivery', 'Backlog', 'Age', 'Status']);
    expect((crd.spec as { names: Json }).names).toMatchObject({
      kind: 'PromotionAlert',
      shortNames: ['palert'],
    });
  });
});
