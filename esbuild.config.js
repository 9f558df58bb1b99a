// @ts-check
/**
 * The second step of `npm run build`: bundles what the compiler wrote to dist/modules into the
 * entry files that run, dist/server.js (the bin and the image's entrypoint), dist/index.js (the
 * package as a library, for the demo and the benchmarks) and dist/kubectl-promotion.js (the
 * kubectl plugin's bin), with the dependencies they use in dist/chunks/: the code they share,
 * and what is loaded only when used (the flux-config command, the pull-request strategy's Git
 * side).
 *
 * Why bundle: V8 keeps every loaded module's source on its heap, and @kubernetes/client-node's
 * package entry loads its whole generated API (30 MB of source) though the gateway takes only
 * its KubeConfig (src/kube/rest.ts makes the calls). Bundled, only the code reachable from our
 * imports stays (docs/adr/0012-esbuild-bundle-with-used-client-node-models.md,
 * docs/adr/0022-kubernetes-transport.md). Nothing here edits a dependency's source.
 */
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

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

/**
 * How the entry files are bundled (entry points and output aside); a test bundles the sources
 * with the same options to check what the bundle takes of the dependencies.
 */
/** @type {import('esbuild').BuildOptions} */
export const BUNDLE_OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  // Not keepNames: it re-sets the name of every function as it is created, closures made per
  // request included, and cost the ingress a fifth of its rate (gateway / reference route 0.83x
  // against 1.03-1.11x without, measured). The names that clash across modules and get a digit
  // are helpers' and dependencies' (none of the gateway's classes or errors).
  // Chunks, so that what an import() loads stays out until it runs. Without them esbuild puts
  // it in the same file and wraps everything it reaches, the client library included, in
  // lazy-init functions whose unused parts it can no longer leave out.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
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
};

/** Builds dist/server.js, dist/index.js, dist/kubectl-promotion.js and dist/chunks/ from dist/modules. */
async function bundle() {
  const { outputFiles } = await build({
    ...BUNDLE_OPTIONS,
    entryPoints: {
      server: 'dist/modules/server.js',
      index: 'dist/modules/index.js',
      'kubectl-promotion': 'dist/modules/kubectl-promotion.js',
    },
    outdir: 'dist',
    write: false,
  });
  // Chunks' names change with their content: last build's go.
  rmSync('dist/chunks', { recursive: true, force: true });
  mkdirSync('dist/chunks');
  for (const file of outputFiles) {
    writeFileSync(file.path, file.path.endsWith('.js') ? asciiOnly(file.text) : file.contents);
  }
  chmodSync('dist/server.js', 0o755);
  chmodSync('dist/kubectl-promotion.js', 0o755);
}

// Run as `node esbuild.config.js`; imported (by a test), it only defines.
if (process.argv[1] === fileURLToPath(import.meta.url)) await bundle();
