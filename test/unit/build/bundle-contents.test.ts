/**
 * What the bundle takes of @kubernetes/client-node (esbuild.config.js): its KubeConfig and
 * Watch, none of its generated APIs; and no build step edits a dependency's source.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_OPTIONS } from '../../../esbuild.config.js';
import { packagePath } from '../../../src/paths.js';

/** Bytes each input file of client-node contributes to the bundled entry files. */
let clientNode: Map<string, number>;

beforeAll(async () => {
  const result = await build({
    ...BUNDLE_OPTIONS,
    entryPoints: { server: packagePath('src/server.ts'), index: packagePath('src/index.ts') },
    outdir: packagePath('dist-bundle-test'),
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  clientNode = new Map();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
      const at = path.indexOf('@kubernetes/client-node/dist/');
      if (at < 0 || bytesInOutput === 0) continue;
      const file = path.slice(at + '@kubernetes/client-node/dist/'.length);
      clientNode.set(file, (clientNode.get(file) ?? 0) + bytesInOutput);
    }
  }
}, 60_000);

describe('the bundle and client-node', () => {
  it('takes its KubeConfig and Watch, not its informer (the catalog is the one cache)', () => {
    expect(clientNode.get('config.js')).toBeGreaterThan(0);
    expect(clientNode.get('watch.js')).toBeGreaterThan(0);
    expect(clientNode.get('informer.js')).toBeUndefined();
    expect(clientNode.get('cache.js')).toBeUndefined();
  });

  it('takes none of its generated APIs', () => {
    const apis = [...clientNode.keys()].filter((file) => file.startsWith('gen/apis/'));
    expect(apis).toEqual([]);
  });

  it('is built without plugins: nothing rewrites a dependency', () => {
    expect(BUNDLE_OPTIONS.plugins ?? []).toEqual([]);
  });

  it('is reached from the sources for KubeConfig, Watch and types only', async () => {
    const names = new Set<string>();
    for (const file of await sourceFiles(packagePath('src'))) {
      const text = await readFile(file, 'utf8');
      for (const [, list = ''] of text.matchAll(
        /import \{([^}]*)\} from '@kubernetes\/client-node'/g,
      )) {
        for (const name of list.split(',').map((n) => n.trim()))
          if (name !== '' && !name.startsWith('type ')) names.add(name);
      }
    }
    expect([...names].sort()).toEqual(['KubeConfig', 'Watch']);
  });
});

async function sourceFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name));
}
