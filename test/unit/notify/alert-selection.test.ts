/**
 * Which Pipelines an alert selects: its own namespace by default; entries by name, labels and
 * namespace; another namespace only where notifications.crossNamespace allows it (false, true,
 * or a list of the alert namespaces that may), which selectionProblem() names.
 */
import { describe, expect, it } from 'vitest';
import {
  mayReach,
  selectedNamespaces,
  selectionProblem,
  selects,
  wantsType,
  type SelectingAlert,
  type SelectionPolicy,
} from '../../../src/notify/alert-selection.js';
import type { PipelineSelector } from '../../../src/notify/alert-resource.js';

const OWN: SelectionPolicy = { crossNamespace: false };
const ANY: SelectionPolicy = { crossNamespace: true };
const PLATFORM: SelectionPolicy = { crossNamespace: ['platform'] };

function alert(pipelines?: PipelineSelector[], namespace = 'shop'): SelectingAlert {
  return { metadata: { namespace }, spec: pipelines === undefined ? {} : { pipelines } };
}

function pipeline(namespace: string, name: string, labels?: Record<string, string>) {
  return { metadata: { namespace, name, ...(labels === undefined ? {} : { labels }) } };
}

const shopApp = pipeline('shop', 'app', { team: 'shop', tier: 'web' });
const shopDb = pipeline('shop', 'db', { team: 'shop', tier: 'data' });
const billingApp = pipeline('billing', 'app', { team: 'billing' });

describe('selects', () => {
  it('without pipelines, takes every Pipeline of the alert namespace and no other', () => {
    for (const policy of [OWN, ANY]) {
      expect([shopApp, shopDb, billingApp].map((p) => selects(alert(), p, policy))).toEqual([
        true,
        true,
        false,
      ]);
    }
  });

  it('matches an entry on every field it gives: name, each label, namespace', () => {
    const byName = alert([{ name: 'db' }]);
    expect([selects(byName, shopApp, OWN), selects(byName, shopDb, OWN)]).toEqual([false, true]);
    const byLabels = alert([{ matchLabels: { team: 'shop', tier: 'web' } }]);
    expect([selects(byLabels, shopApp, OWN), selects(byLabels, shopDb, OWN)]).toEqual([
      true,
      false,
    ]);
    const both = alert([{ name: 'app', matchLabels: { tier: 'data' } }]);
    expect([selects(both, shopApp, OWN), selects(both, shopDb, OWN)]).toEqual([false, false]);
    const unlabelled = pipeline('shop', 'bare');
    expect(selects(byLabels, unlabelled, OWN)).toBe(false);
    expect(selects(alert([{ matchLabels: {} }]), unlabelled, OWN)).toBe(true);
  });

  it('selects when any entry matches', () => {
    const two = alert([{ name: 'db' }, { matchLabels: { tier: 'web' } }]);
    expect([selects(two, shopApp, OWN), selects(two, shopDb, OWN)]).toEqual([true, true]);
  });

  it('reaches another namespace only as far as the policy allows', () => {
    const other = alert([{ namespace: 'billing' }]);
    expect(selects(other, billingApp, OWN)).toBe(false);
    expect(selects(other, billingApp, ANY)).toBe(true);
    expect(selects(other, billingApp, PLATFORM)).toBe(false);
    expect(selects(alert([{ namespace: 'billing' }], 'platform'), billingApp, PLATFORM)).toBe(true);
    // The namespace given is the only one the entry covers, its own included.
    expect(selects(other, shopApp, ANY)).toBe(false);
  });

  it('does not take a label inherited from the prototype as carried', () => {
    const tricky = alert([{ matchLabels: { toString: 'x' } }]);
    expect(selects(tricky, pipeline('shop', 'a', {}), OWN)).toBe(false);
  });
});

describe('the policy', () => {
  it('lets a listed namespace reach any, and others only their own', () => {
    expect(mayReach('platform', 'billing', PLATFORM)).toBe(true);
    expect(mayReach('shop', 'billing', PLATFORM)).toBe(false);
    expect(mayReach('shop', 'shop', OWN)).toBe(true);
  });

  it('names the first entry it refuses, and nothing when all are allowed', () => {
    const spec = alert([{ name: 'a' }, { namespace: 'shop' }, { namespace: 'billing' }]);
    expect(selectionProblem(spec, OWN)).toMatch(/^spec\.pipelines\[2\]\.namespace: billing /);
    expect(selectionProblem(spec, OWN)).toContain('notifications.crossNamespace');
    expect(selectionProblem(spec, ANY)).toBeUndefined();
    expect(selectionProblem(alert(), OWN)).toBeUndefined();
  });

  it('lists the namespaces an alert covers, without refused ones', () => {
    const spec = alert([{ name: 'a' }, { namespace: 'billing' }, { namespace: 'ops' }]);
    expect(selectedNamespaces(spec, OWN)).toEqual(['shop']);
    expect(selectedNamespaces(spec, ANY)).toEqual(['shop', 'billing', 'ops']);
    expect(selectedNamespaces(alert([{ namespace: 'ops' }]), OWN)).toEqual([]);
    expect(selectedNamespaces(alert(), OWN)).toEqual(['shop']);
  });
});

describe('wantsType', () => {
  it('wants every type without eventTypes, else only those listed', () => {
    expect(wantsType(alert(), 'PromotionFailed')).toBe(true);
    const some: SelectingAlert = {
      metadata: { namespace: 'shop' },
      spec: { eventTypes: ['PromotionFailed'] },
    };
    expect([wantsType(some, 'PromotionFailed'), wantsType(some, 'PromotionStarted')]).toEqual([
      true,
      false,
    ]);
  });
});
