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
import { chmodSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

const { outputFiles } = await build({
  entryPoints: { server: 'dist/modules/server.js', index: 'dist/modules/index.js' },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  // Not keepNames: it re-sets the name of every function as it is created, closures made per
  // request included, and cost the ingress a fifth of its rate (gateway / reference route 0.83x
  // against 1.03-1.11x without, measured). The names that clash across modules and get a digit
  // are helpers' and dependencies' (none of the gateway's classes or errors).
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
  // Whitespace and comments out, names kept (stack traces name the gateway's functions; their
  // places map back with --enable-source-maps). Why: Node keeps each script's source in memory
  // for as long as it runs, and the client library's generated code is mostly doc comments:
  // 9.4 MB of source became 5.0 (docs/benchmarks.md).
  minifyWhitespace: true,
  minifySyntax: true,
  write: false,
});

/**
 * The output in ASCII alone. Why: V8 holds each loaded script's source on its heap, as one byte
 * per character only when every character fits in Latin-1; an em dash in a dependency's comment
 * doubled the bundle's 9 MB source to 18 MiB. esbuild escapes strings and templates (its default
 * charset) but leaves comments and regular expressions as written; a `\uXXXX` per UTF-16 code
 * unit means the same in a comment, a string and a regular expression, with or without its u
 * flag (where two of them make a surrogate pair).
 */
function asciiOnly(text) {
  return text.replace(/[^\0-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

for (const file of outputFiles) {
  writeFileSync(file.path, file.path.endsWith('.js') ? asciiOnly(file.text) : file.contents);
}
chmodSync('dist/server.js', 0o755);
