/** The generated files (paths relative to the repository) and their texts; see gen-schemas.mjs. */
export declare function renderGenerated(
  shapes: typeof import('../src/shapes/documents.js'),
  read: (path: string) => string,
): Promise<{ path: string; text: string }[]>;
