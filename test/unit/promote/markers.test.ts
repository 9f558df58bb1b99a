/**
 * Marker edits change exactly the marked scalars: every other byte of the file (comments,
 * quoting, key order, other documents, other environments' markers) stays as it was.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import {
  markerFor,
  setMarkedValues,
} from '../../../src/promote/strategies/pull-request/markers.js';

const PROD = markerFor('podinfo', 'podinfo', 'prod');

const FILE = `# HelmRelease for prod, kept by hand.
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo # not a marker
spec:
  chart:
    spec:
      chart: podinfo
      version: "6.5.0" # {"$promotion": "podinfo:podinfo:prod"}
      # a comment between keys
      sourceRef: { kind: HelmRepository, name: podinfo }
  values:
    image: ghcr.io/stefanprodan/podinfo:6.5.0
    tag: 6.5.0   # {"$promotion": "podinfo:podinfo:prod"}
    staging: 6.5.0 # {"$promotion": "podinfo:podinfo:staging"}
---
# second document
list:
  - 'old' # {"$promotion": "podinfo:podinfo:prod"}
  - keep
`;

describe('setMarkedValues', () => {
  it('sets exactly the marked scalars, keeping quotes, comments and other documents', () => {
    const edit = setMarkedValues(FILE, PROD, '6.6.0');
    expect(edit).toMatchObject({ markers: 3, changed: true });
    const before = FILE.split('\n');
    const after = edit.text.split('\n');
    expect(after).toHaveLength(before.length);
    const changedLines = before.flatMap((line, i) => (line === after[i] ? [] : [[line, after[i]]]));
    expect(changedLines).toEqual([
      [
        '      version: "6.5.0" # {"$promotion": "podinfo:podinfo:prod"}',
        '      version: "6.6.0" # {"$promotion": "podinfo:podinfo:prod"}',
      ],
      [
        '    tag: 6.5.0   # {"$promotion": "podinfo:podinfo:prod"}',
        '    tag: 6.6.0   # {"$promotion": "podinfo:podinfo:prod"}',
      ],
      [
        '  - \'old\' # {"$promotion": "podinfo:podinfo:prod"}',
        '  - \'6.6.0\' # {"$promotion": "podinfo:podinfo:prod"}',
      ],
    ]);
  });

  it('leaves a file whose marked values already hold the revision untouched', () => {
    const once = setMarkedValues(FILE, PROD, '6.6.0');
    const twice = setMarkedValues(once.text, PROD, '6.6.0');
    expect(twice).toEqual({ text: once.text, markers: 3, changed: false });
  });

  it('finds nothing in a file without the marker, and ignores other environments', () => {
    expect(setMarkedValues('a: 1 # {"$promotion": "x:y:z"}\n', PROD, '2')).toEqual({
      text: 'a: 1 # {"$promotion": "x:y:z"}\n',
      markers: 0,
      changed: false,
    });
    expect(setMarkedValues('a: 1 # $promotion is mentioned\n', PROD, '2').markers).toBe(0);
  });

  it('quotes a plain revision YAML would read as a number, so it stays a string', () => {
    const edit = setMarkedValues('v: 1.9 # {"$promotion": "podinfo:podinfo:prod"}\n', PROD, '1.10');
    expect(edit.text).toBe('v: "1.10" # {"$promotion": "podinfo:podinfo:prod"}\n');
    expect(parseAllDocuments(edit.text)[0]?.toJS()).toEqual({ v: '1.10' });
  });

  it('property: any revision lands as that string, and every unmarked line is unchanged', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9A-Za-z][0-9A-Za-z.+_-]{0,20}$/), (revision) => {
        const edit = setMarkedValues(FILE, PROD, revision);
        const docs = parseAllDocuments(edit.text).map((d) => d.toJS() as Record<string, never>);
        expect(docs[0]).toMatchObject({
          spec: { chart: { spec: { version: revision } }, values: { tag: revision } },
        });
        expect(docs[1]).toEqual({ list: [revision, 'keep'] });
        const before = FILE.split('\n');
        edit.text.split('\n').forEach((line, i) => {
          if (!before[i]?.includes('podinfo:podinfo:prod')) expect(line).toBe(before[i]);
        });
      }),
    );
  });
});
