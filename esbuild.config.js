// @ts-check
/**
 * The second step of `npm run build`: bundles what the compiler wrote to dist/modules into the
 * two entry files that run, dist/server.js (the bin and the image's entrypoint) and dist/index.js
 * (the package as a library, for the demo and the benchmarks), with the dependencies they use in
 * dist/chunks/: the code both share, and what is loaded only when used (the flux-config command,
 * the pull-request strategy's Git side).
 *
 * Why bundle: @kubernetes/client-node 1.x loads its whole generated API (every API group's
 * classes, 30 MB of source) for the two clients the gateway makes, and V8 keeps every loaded
 * module's source on its heap. Bundled, only the code reachable from our imports stays: the
 * gateway's fixed part was 167 MiB RSS with a 47.7 MiB live heap, and is 143 MiB with 29.0
 * (measured at 10 Pipelines x 50 clusters, docs/benchmarks.md), for every gateway at any size.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * The client library's model classes the gateway's typed calls (de)serialize: Secrets read
 * (CoreV1Api.readNamespacedSecret), Events created (CoreV1Api.createNamespacedEvent) and Leases
 * (CoordinationV1Api). Every other call is CustomObjectsApi's, whose objects are plain JSON.
 * A new typed call adds its model here.
 */
export const MODELS_USED = ['V1Secret', 'CoreV1Event', 'V1Lease'];

/**
 * client-node's ObjectSerializer in the bundle with only the models MODELS_USED reach (through
 * their fields' types), instead of all 717. Why: its type map names every model class, so every
 * class was bundled, loaded and defined at start-up, though the gateway's calls use a dozen:
 * without the others a gateway starts with 8 MiB less RSS and a 1.7 MiB smaller live heap, and
 * the bundle is 0.7 MB smaller (docs/benchmarks.md). The library (de)serializes a type missing
 * from its map as the JSON it is, so what a call outside the list would get is its plain JSON,
 * never an error; the build fails if a listed model is not the library's.
 */
export const onlyModelsUsed = {
  name: 'client-node-models-used',
  setup(plugin) {
    plugin.onLoad(
      { filter: /client-node[/\\]dist[/\\]gen[/\\]models[/\\]ObjectSerializer\.js$/ },
      (file) => {
        const source = readFileSync(file.path, 'utf8');
        const start = source.indexOf('let typeMap = {');
        const end = source.indexOf('\n};', start);
        if (start < 0 || end < 0) throw new Error('client-node: ObjectSerializer has no typeMap');
        const lines = source.slice(start, end).split('\n');
        const known = new Set(lines.map(entryName).filter(Boolean));
        const kept = modelsReached(dirname(file.path), known, MODELS_USED);
        const entries = lines.filter((line, i) => i === 0 || kept.has(entryName(line)));
        return { contents: source.slice(0, start) + entries.join('\n') + source.slice(end) };
      },
    );
    // The models no type map entry names are then imported for nothing; without side effects
    // (each file defines one class), the bundle leaves them out.
    plugin.onResolve({ filter: /^\.\.?\/.*\.js$/ }, (args) => {
      if (!/client-node[/\\]dist[/\\]gen[/\\]models$/.test(args.resolveDir)) return undefined;
      return { path: join(args.resolveDir, args.path), sideEffects: false };
    });
  },
};

/** The model a line of the type map names (`    "V1Secret": V1Secret,`), or undefined. */
function entryName(line) {
  return /^\s*"(\w+)":/.exec(line)?.[1];
}

/**
 * The models of `known` (the type map's names) that `roots` reach through their fields' types,
 * roots included; a type the map does not name (V1MicroTime, a Date) is passed as JSON anyway.
 */
function modelsReached(modelsDir, known, roots) {
  for (const root of roots) {
    if (!known.has(root)) throw new Error(`client-node has no model ${root} (MODELS_USED)`);
  }
  const reached = new Set();
  const pending = [...roots];
  while (pending.length > 0) {
    const name = pending.pop();
    if (reached.has(name) || !known.has(name)) continue;
    reached.add(name);
    const source = readFileSync(join(modelsDir, `${name}.js`), 'utf8');
    for (const [, type] of source.matchAll(/"type": "([^"]*)"/g)) {
      pending.push(...type.matchAll(/\b[A-Z]\w*\b/g).map(([word]) => word));
    }
  }
  return reached;
}

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

/** Builds dist/server.js, dist/index.js and dist/chunks/ from dist/modules. */
async function bundle() {
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
    // Chunks, so that what an import() loads stays out until it runs. Without them esbuild puts
    // it in the same file and wraps everything it reaches, the client library included, in
    // lazy-init functions whose unused parts it can no longer leave out: dist/server.js carried
    // all 717 models whatever the type map kept.
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
    plugins: [onlyModelsUsed],
    // Whitespace and comments out, names kept (stack traces name the gateway's functions; their
    // places map back with --enable-source-maps). Why: Node keeps each script's source in memory
    // for as long as it runs, and the client library's generated code is mostly doc comments:
    // 9.4 MB of source became 5.0 (docs/benchmarks.md).
    minifyWhitespace: true,
    minifySyntax: true,
    write: false,
  });
  // Chunks' names change with their content: last build's go.
  rmSync('dist/chunks', { recursive: true, force: true });
  mkdirSync('dist/chunks');
  for (const file of outputFiles) {
    writeFileSync(file.path, file.path.endsWith('.js') ? asciiOnly(file.text) : file.contents);
  }
  chmodSync('dist/server.js', 0o755);
}

// Run as `node esbuild.config.js`; imported (by a test), it only defines.
if (process.argv[1] === fileURLToPath(import.meta.url)) await bundle();
