// @ts-check
/**
 * The second step of `npm run build`: bundles what the compiler wrote to dist/modules into the
 * two files that run, dist/server.js (the bin and the image's entrypoint) and dist/index.js (the
 * package as a library, for the demo and the benchmarks), each with the dependencies it uses.
 *
 * Why bundle: @kubernetes/client-node 1.x loads its whole generated API (every API group's
 * classes, 30 MB of source) for the two clients the gateway makes, and V8 keeps every loaded
 * module's source on its heap. Bundled, only the code reachable from our imports stays: the
 * gateway's fixed part was 167 MiB RSS with a 47.7 MiB live heap, and is 143 MiB with 29.0
 * (measured at 10 Pipelines x 50 clusters, docs/benchmarks.md), for every gateway at any size.
 */
import { chmodSync } from 'node:fs';
import { build } from 'esbuild';

await build({
  entryPoints: { server: 'dist/modules/server.js', index: 'dist/modules/index.js' },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  // Names as written (esbuild renames clashing top-level names otherwise): errors and logs
  // show class and function names.
  keepNames: true,
  // Maps back to src/ through the compiler's maps, for `node --enable-source-maps`.
  sourcemap: 'linked',
  sourcesContent: false,
  // node-fetch (client-node's HTTP client) calls url.parse() on every request, and tr46 under
  // it requires Node's punycode: Node warns about both only for code outside node_modules, so
  // node-fetch stays there, loaded at run time.
  external: ['node-fetch'],
  // The bundle is an ES module; the CommonJS dependencies inside it require Node's modules.
  banner: {
    js: "import { createRequire as createRequireForBundle } from 'node:module';\nconst require = createRequireForBundle(import.meta.url);",
  },
  logLevel: 'warning',
});
chmodSync('dist/server.js', 0o755);
