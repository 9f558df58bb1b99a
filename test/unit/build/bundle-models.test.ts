/**
 * The bundle's client library keeps only the model classes the gateway's typed calls use
 * (esbuild.config.js): those (de)serialize exactly as the library's own do, any other type
 * passes as the JSON it is, and a typed API the list was not made for fails here first.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ObjectSerializer as Library } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS_USED, onlyModelsUsed } from '../../../esbuild.config.js';
import { packagePath } from '../../../src/paths.js';

type Serializer = Pick<typeof Library, 'deserialize' | 'serialize'>;

const META = {
  name: 'x',
  namespace: 'ns',
  creationTimestamp: '2026-11-27T10:00:00Z',
  ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u', controller: true }],
  managedFields: [{ manager: 'm', operation: 'Update', time: '2026-11-27T10:00:01Z' }],
};

/** One object per typed call: what the gateway reads and writes through them. */
const OBJECTS: Record<string, object> = {
  V1Secret: {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: META,
    data: { token: 'dG9r' },
    type: 'Opaque',
  },
  CoreV1Event: {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: META,
    involvedObject: { kind: 'Pipeline', name: 'p', namespace: 'ns', uid: 'u' },
    reason: 'Promoted',
    firstTimestamp: '2026-11-27T10:00:02Z',
    eventTime: '2026-11-27T10:00:02.123456Z',
    series: { count: 2, lastObservedTime: '2026-11-27T10:00:03.000001Z' },
    source: { component: 'promotion-gateway' },
  },
  V1Lease: {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: META,
    spec: {
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      renewTime: '2026-11-27T10:00:04.000000Z',
    },
  },
};

let dir: string;
let bundled: Serializer;
let modelFiles: number;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bundle-models-'));
  const result = await build({
    stdin: {
      contents:
        "export { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';",
      resolveDir: packagePath(),
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: join(dir, 'serializer.js'),
    metafile: true,
    plugins: [onlyModelsUsed],
    logLevel: 'silent',
  });
  const inputs = Object.keys(Object.values(result.metafile.outputs)[0]?.inputs ?? {});
  modelFiles = inputs.filter((path) =>
    /gen\/models\/(?!ObjectSerializer|all)\w+\.js$/.test(path),
  ).length;
  const module = (await import(pathToFileURL(join(dir, 'serializer.js')).href)) as {
    ObjectSerializer: Serializer;
  };
  bundled = module.ObjectSerializer;
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the bundle keeps the client library models the gateway uses', () => {
  it.each(Object.keys(OBJECTS))('reads and writes %s as the library does', (type) => {
    const json = OBJECTS[type];
    const ours = bundled.deserialize(json, type, '') as object;
    const theirs = Library.deserialize(json, type, '') as object;
    expect(ours).toEqual(theirs);
    // A model instance, as the library's (esbuild names the class inside its own scope _Name).
    expect(ours.constructor.name.replace(/^_/, '')).toBe(theirs.constructor.name);
    expect(bundled.serialize(ours, type, '')).toEqual(Library.serialize(theirs, type, ''));
  });

  it('bundles a dozen models, not the library’s 700', async () => {
    const all = (
      await readdir(packagePath('node_modules/@kubernetes/client-node/dist/gen/models'))
    ).filter((file) => /^\w+\.js$/.test(file));
    expect(all.length).toBeGreaterThan(700);
    expect(modelFiles).toBeGreaterThanOrEqual(MODELS_USED.length);
    expect(modelFiles).toBeLessThan(20);
  });

  it('passes a type it left out as the JSON it is', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: META };
    expect(bundled.deserialize(pod, 'V1Pod', '')).toBe(pod);
    // The library makes it a V1Pod with Dates: the difference is real.
    const theirs = Library.deserialize(pod, 'V1Pod', '') as {
      metadata: { creationTimestamp: unknown };
    };
    expect(theirs.metadata.creationTimestamp).toBeInstanceOf(Date);
  });

  it('was made for the typed APIs the gateway calls', async () => {
    // A new typed API (not CustomObjectsApi's plain JSON) needs its models in MODELS_USED.
    const apis = new Set<string>();
    for (const file of await sourceFiles(packagePath('src'))) {
      const text = await readFile(file, 'utf8');
      for (const [, names = ''] of text.matchAll(
        /import \{([^}]*)\} from '@kubernetes\/client-node'/g,
      )) {
        for (const name of names.split(',').map((n) => n.trim()))
          if (/^\w+Api$/.test(name)) apis.add(name);
      }
    }
    expect([...apis].sort()).toEqual(['CoordinationV1Api', 'CoreV1Api', 'CustomObjectsApi']);
  });
});

async function sourceFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name));
}
