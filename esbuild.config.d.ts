import type { Plugin } from 'esbuild';

/** The client library's models the gateway's typed calls use; see esbuild.config.js. */
export declare const MODELS_USED: readonly string[];
/** The bundle's client-node with only the models MODELS_USED reach; see esbuild.config.js. */
export declare const onlyModelsUsed: Plugin;
