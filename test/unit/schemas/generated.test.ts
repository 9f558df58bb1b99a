/**
 * schemas/*.json and the CRDs' openAPIV3Schema are generated from src/shapes: a declaration
 * changed without `npm run gen:schemas` leaves a file that differs from what the generator writes.
 */
import { readFileSync } from 'node:fs';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { renderGenerated } from '../../../scripts/gen-schemas.mjs';
import * as shapes from '../../../src/shapes/documents.js';
import { packagePath } from '../../../src/paths.js';

const read = (path: string): string => readFileSync(packagePath(path), 'utf8');

describe('generated schema files', () => {
  it('are what the declarations in src/shapes generate', async () => {
    const files = await renderGenerated(shapes, read);
    expect(files.length).toBeGreaterThanOrEqual(shapes.schemaDocuments.length);
    for (const { path, text } of files) expect({ path, text: read(path) }).toEqual({ path, text });
  });

  it('differ once a declaration changes', async () => {
    const [first] = shapes.schemaDocuments;
    const changed = { ...first!, schema: Type.Object({ changed: Type.String() }) };
    const [file] = await renderGenerated({ ...shapes, schemaDocuments: [changed] }, read);
    expect(file!.text).not.toEqual(read(file!.path));
  });

  it('leave the API server hints out of the JSON files and in the CRDs', () => {
    const document = shapes.schemaDocuments.find((each) => each.crd !== undefined)!;
    expect(JSON.stringify(shapes.jsonSchemaOf(document))).not.toContain('x-kubernetes-');
    expect(JSON.stringify(shapes.openApiSchemaOf(document))).toContain('x-kubernetes-');
  });
});
