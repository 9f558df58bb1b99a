/**
 * The layer order of src/, checked: every import (type-only ones included) goes down this list,
 * never back up and never sideways within a layer, and no files import each other in a cycle.
 * A folder or top-level file missing from the list fails, so a new one is placed on purpose.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  importCycles,
  importEdges,
  layerViolations,
  type ImportEdge,
} from '../../support/import-graph.js';

/**
 * Top first. The process and library entries and the composition root drive everything; the
 * doors (HTTP, the web view, the approval and halt services) hand work to the loops; the
 * reconciler runs verify -> evaluate -> promote -> status for one Pipeline, fed by the hint
 * queue and the resync; below it the evaluator's input assembled in one place, the stages it calls, then the ports to the outside, the
 * intake (hints, credentials), the configuration, the pure decision core and windows, and
 * the resource model, the declared wire and resource shapes and small libraries every layer
 * shares.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['server.ts', 'index.ts', 'kubectl-promotion.ts'],
  ['cli'],
  ['wiring'],
  ['ui'],
  ['ingress'],
  ['approvals', 'halts', 'leadership'],
  ['resync'],
  ['reconcile'],
  ['evaluation'],
  ['status', 'checks', 'preview'],
  ['promote', 'notify'],
  ['verify'],
  ['catalog', 'forge', 'egress', 'trains'],
  ['outbound', 'kube'],
  ['hints'],
  ['auth'],
  ['config'],
  ['evaluate'],
  ['windows'],
  ['queue', 'pipeline', 'log.ts', 'schemas.ts'],
  ['shapes', 'text', 'time', 'json', 'labels', 'clock.ts', 'metrics.ts', 'paths.ts'],
];

const edges = importEdges(fileURLToPath(new URL('../../../src', import.meta.url)));

describe('the layers of src/', () => {
  it('reads the imports it checks', () => {
    expect(edges).toContainEqual({ from: 'server.ts', to: 'cli/serve.ts' });
    expect(edges.length).toBeGreaterThan(1000);
  });

  it('has no import back up the layers, and no folder outside them', () => {
    expect(layerViolations(edges, LAYERS)).toEqual([]);
  });

  it('has no import cycle among its files', () => {
    expect(importCycles(edges)).toEqual([]);
  });
});

describe('the checks themselves', () => {
  const e = (from: string, to: string): ImportEdge => ({ from, to });
  const layers = [['top'], ['mid', 'side'], ['low']];

  it('refuse an import back up, one sideways and one from an unplaced folder', () => {
    const found = layerViolations(
      [
        e('top/a.ts', 'mid/b.ts'),
        e('low/c.ts', 'top/a.ts'),
        e('mid/b.ts', 'side/d.ts'),
        e('new/x.ts', 'low/c.ts'),
      ],
      layers,
    );
    expect(found).toEqual(['low/c.ts -> top/a.ts', 'mid/b.ts -> side/d.ts', 'new is in no layer']);
  });

  it('find a cycle through several files, and a file importing itself', () => {
    const cycles = importCycles([
      e('a.ts', 'b.ts'),
      e('b.ts', 'c.ts'),
      e('c.ts', 'a.ts'),
      e('c.ts', 'd.ts'),
      e('s.ts', 's.ts'),
    ]);
    expect(cycles).toEqual([['a.ts', 'b.ts', 'c.ts'], ['s.ts']]);
  });
});
