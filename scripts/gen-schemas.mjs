// @ts-check
/**
 * Writes schemas/*.json and the openAPIV3Schema of the CRDs in manifests/crd from the TypeBox
 * declarations in src/shapes (`npm run gen:schemas`). The declarations are bundled with esbuild
 * into a temporary module, so the script needs no TypeScript loader. The output is formatted with
 * the repository's prettier settings, so `prettier --check` and the up-to-date test agree.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import * as prettier from 'prettier';
import { parseDocument } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * @param {string} path
 * @param {string} text
 */
async function format(path, text) {
  const options = await prettier.resolveConfig(path);
  return prettier.format(text, { ...options, filepath: path });
}

/**
 * `value` with every object's keys in alphabetical order, as controller-gen writes a CRD.
 * @param {unknown} value
 * @returns {unknown}
 */
function sortedKeys(value) {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys(/** @type {Record<string, unknown>} */ (value)[key])]),
  );
}

/**
 * The generated files' paths (relative to the repository) and texts. A CRD's text is its current
 * file with only `spec.versions[0].schema.openAPIV3Schema` replaced.
 * @param {typeof import('../src/shapes/documents.js')} shapes
 * @param {(path: string) => string} read reads a file of the repository (the CRD to patch)
 * @returns {Promise<{ path: string; text: string }[]>}
 */
export async function renderGenerated(shapes, read) {
  const out = [];
  for (const document of shapes.schemaDocuments) {
    const path = join('schemas', document.file);
    const json = JSON.stringify(shapes.jsonSchemaOf(document), null, 2);
    out.push({ path, text: await format(join(root, path), json) });
    if (document.crd === undefined) continue;
    const crdPath = join('manifests', 'crd', document.crd);
    const crd = parseDocument(read(crdPath));
    crd.setIn(
      ['spec', 'versions', 0, 'schema', 'openAPIV3Schema'],
      crd.createNode(sortedKeys(shapes.openApiSchemaOf(document))),
    );
    // lineWidth 0: no folding, so a long description stays one scalar as controller-gen writes it.
    const text = crd.toString({ lineWidth: 0 });
    out.push({ path: crdPath, text: await format(join(root, crdPath), text) });
  }
  return out;
}

/** Bundles src/shapes/documents.ts and imports it. */
async function loadShapes() {
  const dir = mkdtempSync(join(tmpdir(), 'gen-schemas-'));
  try {
    const outfile = join(dir, 'documents.mjs');
    await esbuild.build({
      entryPoints: [join(root, 'src', 'shapes', 'documents.ts')],
      bundle: true,
      format: 'esm',
      platform: 'node',
      outfile,
      logLevel: 'warning',
    });
    return /** @type {typeof import('../src/shapes/documents.js')} */ (
      await import(pathToFileURL(outfile).href)
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const files = await renderGenerated(await loadShapes(), (path) =>
    readFileSync(join(root, path), 'utf8'),
  );
  for (const { path, text } of files) writeFileSync(join(root, path), text);
  console.log(`wrote ${files.map((file) => file.path).join(', ')}`);
}
