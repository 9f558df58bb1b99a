/** Flux object fixtures and small editors for the target-status tests. */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { KubeObject } from '../../src/kube/ports.js';

/** The folder of Flux object fixtures. */
export const OBJECTS = new URL('../fixtures/flux/objects/', import.meta.url);
export const LOCATION = { cluster: 'prod-eu', namespace: 'podinfo' };

/** A fixture object, parsed. */
export function fixture(name: string): KubeObject {
  return parse(readFileSync(new URL(name, OBJECTS), 'utf8')) as KubeObject;
}

/** The parts of a Flux object the cases edit; loose on purpose, to plant malformed values. */
export interface Editable {
  apiVersion: string;
  kind: string;
  metadata: { name: string; generation?: number };
  status?: {
    observedGeneration?: number;
    conditions: Record<string, unknown>[];
    history?: Record<string, unknown>[];
    lastAppliedRevision?: string;
  };
}

/** A deep copy of a fixture with edits applied, so cases never share state. */
export function edited(name: string, edit: (obj: Editable) => void): KubeObject {
  const obj = structuredClone(fixture(name));
  edit(obj);
  return obj;
}

export const READY_HR = 'helmrelease-ready-oci-tested.yaml';
export const READY_KS = 'kustomization-ready.yaml';

/** A metav1.Condition as Flux writes it. */
export function condition(
  type: string,
  status: string,
  reason: string,
  message = '',
  observedGeneration?: number,
) {
  return {
    type,
    status,
    reason,
    message,
    lastTransitionTime: '2024-05-07T04:55:11Z',
    observedGeneration,
  };
}
