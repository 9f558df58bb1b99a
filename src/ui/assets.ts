/**
 * The view's static files (web/ in the package: one stylesheet and a few small ES modules, no
 * build step), read once when the view is built, gzipped once, and served with a content hash:
 * a page links `/static/<file>?v=<hash>`, which may be cached for good; any other request for
 * the file is revalidated by its ETag.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { packagePath } from '../paths.js';

/** The files the view serves. */
export const UI_ASSETS = ['ui.css', 'live.js', 'fleet.js', 'pipeline.js', 'copy.js'] as const;
/** One of them. */
export type UiAsset = (typeof UI_ASSETS)[number];

/** One file, ready to serve. */
export interface LoadedAsset {
  body: Buffer;
  gzipped: Buffer;
  contentType: string;
  /** The first 16 hex digits of its SHA-256: its version and ETag. */
  hash: string;
}

/** Every asset by name. */
export type AssetTable = ReadonlyMap<string, LoadedAsset>;

/** Reads web/ (or `dir`) once; a missing file is a packaging error, thrown at start. */
export function loadAssets(dir = packagePath('web')): AssetTable {
  const table = new Map<string, LoadedAsset>();
  for (const name of UI_ASSETS) {
    const body = readFileSync(`${dir}/${name}`);
    table.set(name, {
      body,
      gzipped: gzipSync(body, { level: 9 }),
      contentType: name.endsWith('.css')
        ? 'text/css; charset=utf-8'
        : 'text/javascript; charset=utf-8',
      hash: createHash('sha256').update(body).digest('hex').slice(0, 16),
    });
  }
  return table;
}

/** The URL pages link an asset by: versioned, so it can be cached until it changes. */
export function assetUrlOf(table: AssetTable): (asset: UiAsset) => string {
  return (asset) => `/static/${asset}?v=${table.get(asset)?.hash ?? ''}`;
}
