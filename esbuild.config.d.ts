import type { BuildOptions } from 'esbuild';

/** How the entry files are bundled, entry points and output aside; see esbuild.config.js. */
export declare const BUNDLE_OPTIONS: BuildOptions;
