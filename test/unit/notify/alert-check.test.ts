/**
 * Alerts as the engine gets them: the AlertSource lists every scope through the management
 * reader and checks each object; an invalid alert comes back with a problem naming its field
 * (never quoting a value), including what the CRD schema cannot say (timeout bound, template
 * with a chat type, another namespace the policy refuses). A failed scope fails the listing.
 */
import { describe, expect, it } from 'vitest';
import type { KubeObject, ObjectReader, PageVisitor, ReadResult } from '../../../src/kube/ports.js';
import { alertTimeoutMs, checkAlert } from '../../../src/notify/alert-check.js';
import { asUncheckedAlert, type UncheckedAlert } from '../../../src/notify/alert-resource.js';
import { AlertSource } from '../../../src/notify/alert-source.js';

const OWN = { crossNamespace: false, allowedUrlPrefixes: [] };

function alert(spec: Record<string, unknown>, name = 'hooks', namespace = 'shop'): KubeObject {
  return {
    apiVersion: 'notifications.promotion-gateway.dev/v1alpha1',
    kind: 'PromotionAlert',
    metadata: { name, namespace, resourceVersion: '1' },
    spec,
  };
}

const URL_WITH_SECRET = 'https://hooks.example.com/T0/B0/s3cr3t-path';

function unchecked(spec: Record<string, unknown>): UncheckedAlert {
  const object = asUncheckedAlert(alert(spec));
  if (object === undefined) throw new Error('not an alert');
  return object;
}

function problemOf(spec: Record<string, unknown>): string {
  const checked = checkAlert(unchecked(spec), OWN);
  return checked.ok ? '' : checked.problem;
}

describe('checkAlert', () => {
  it('accepts a valid alert as it is', () => {
    const object = unchecked({ address: URL_WITH_SECRET, eventTypes: ['PromotionFailed'] });
    const checked = checkAlert(object, OWN);
    expect(checked).toEqual({ ok: true, alert: object });
  });

  it.each([
    [{ type: 'slack' }, 'spec.address: is required unless spec.secretRef names a Secret'],
    [{ address: 'ftp://x/' }, 'spec.address: must match pattern'],
    [
      { address: URL_WITH_SECRET, pipelines: [{ name: 'Bad_Name' }] },
      'spec.pipelines[0].name: must match pattern',
    ],
    [{ address: URL_WITH_SECRET, secretRef: {} }, 'spec.secretRef.name: is required'],
    [
      { address: URL_WITH_SECRET, eventTypes: ['Nope'] },
      'spec.eventTypes[0]: must be equal to one of the allowed values',
    ],
    [
      { address: URL_WITH_SECRET, timeout: '10m' },
      'spec.timeout: must be more than 0s and at most 5m',
    ],
    [
      { address: URL_WITH_SECRET, timeout: '0s' },
      'spec.timeout: must be more than 0s and at most 5m',
    ],
    [
      { address: URL_WITH_SECRET, type: 'slack', template: '{{id}}' },
      "spec.template: a template shapes generic bodies only; this alert's type is slack",
    ],
    [
      { address: URL_WITH_SECRET, pipelines: [{ namespace: 'billing' }] },
      'spec.pipelines[0].namespace: billing is not',
    ],
  ])('refuses %j: %s', (spec, problem) => {
    const text = problemOf(spec);
    expect(text.startsWith(problem)).toBe(true);
    expect(text).not.toContain('s3cr3t');
  });

  it('says when the spec is missing, and reads the default and given timeouts', () => {
    const object = { ...unchecked({}), spec: undefined };
    expect(checkAlert(object, OWN)).toMatchObject({ ok: false, problem: 'spec is required' });
    expect([
      alertTimeoutMs({}),
      alertTimeoutMs({ timeout: '2m' }),
      alertTimeoutMs({ timeout: '1.5s' }),
    ]).toEqual([15_000, 120_000, 1_500]);
  });

  it('takes only stored PromotionAlerts with a namespace and name', () => {
    expect(asUncheckedAlert(alert({}))).toBeDefined();
    expect(asUncheckedAlert({ ...alert({}), kind: 'Alert' })).toBeUndefined();
    expect(asUncheckedAlert({ ...alert({}), metadata: { name: 'x' } })).toBeUndefined();
    expect(asUncheckedAlert(null)).toBeUndefined();
  });
});

/** A management reader over fixed objects per scope ('*' = every namespace). */
class FakeReader implements ObjectReader {
  readonly lists: (string | undefined)[] = [];
  constructor(
    private readonly byScope: Record<string, KubeObject[]>,
    private readonly failing?: string,
  ) {}
  get(): Promise<ReadResult> {
    return Promise.reject(new Error('not used'));
  }
  list(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    visit: PageVisitor,
  ): Promise<ReadResult<number>> {
    this.lists.push(namespace);
    expect([apiVersion, kind]).toEqual([
      'notifications.promotion-gateway.dev/v1alpha1',
      'PromotionAlert',
    ]);
    if (this.failing !== undefined && namespace === this.failing) {
      return Promise.resolve({
        ok: false,
        reason: 'Forbidden',
        message: 'promotionalerts is forbidden',
      });
    }
    const items = this.byScope[namespace ?? '*'] ?? [];
    // Two pages, as a paged LIST would deliver them.
    visit(items.slice(0, 1));
    visit(items.slice(1));
    return Promise.resolve({ ok: true, value: items.length });
  }
}

describe('AlertSource', () => {
  const good = alert({ address: URL_WITH_SECRET }, 'b-good', 'shop');
  const other = alert({ address: URL_WITH_SECRET }, 'a-other', 'shop');
  const bad = alert({ address: URL_WITH_SECRET, timeout: '1h' }, 'bad', 'ops');
  const cross = alert(
    { address: URL_WITH_SECRET, pipelines: [{ namespace: 'shop' }] },
    'cross',
    'ops',
  );

  it('lists every namespace at once, returns alerts sorted and invalid ones with their problem', async () => {
    const reader = new FakeReader({
      '*': [
        good,
        bad,
        other,
        cross,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } },
      ],
    });
    const listed = await new AlertSource(reader, { namespaces: [], policy: OWN }).list();
    expect(reader.lists).toEqual([undefined]);
    if (!listed.ok) throw new Error(listed.message);
    expect(listed.alerts.map((a) => a.metadata.name)).toEqual(['a-other', 'b-good']);
    expect(listed.invalid.map((i) => [i.alert.metadata.name, i.problem.split(':')[0]])).toEqual([
      ['bad', 'spec.timeout'],
      ['cross', 'spec.pipelines[0].namespace'],
    ]);
  });

  it('applies the policy: an allowed cross-namespace alert is valid', async () => {
    const reader = new FakeReader({ '*': [cross] });
    const listed = await new AlertSource(reader, {
      namespaces: [],
      policy: { crossNamespace: ['ops'], allowedUrlPrefixes: [] },
    }).list();
    expect(listed).toMatchObject({
      ok: true,
      invalid: [],
      alerts: [{ metadata: { name: 'cross' } }],
    });
  });

  it('lists each configured namespace, and fails as a whole when one scope fails', async () => {
    const reader = new FakeReader({ shop: [good], ops: [bad] });
    const listed = await new AlertSource(reader, {
      namespaces: ['shop', 'ops'],
      policy: OWN,
    }).list();
    expect(reader.lists).toEqual(['shop', 'ops']);
    expect(listed).toMatchObject({ ok: true, alerts: [{ metadata: { name: 'b-good' } }] });
    const failing = new FakeReader({ shop: [good] }, 'ops');
    const failed = await new AlertSource(failing, {
      namespaces: ['shop', 'ops'],
      policy: OWN,
    }).list();
    expect(failed).toEqual({
      ok: false,
      reason: 'Forbidden',
      message: 'listing PromotionAlerts failed: promotionalerts is forbidden',
    });
  });
});
