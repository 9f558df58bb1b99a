// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Modules a pure module may never reach: anything that does I/O or reads a clock. */
const impureModules = [
  'node:*',
  'fs',
  'fs/*',
  'http',
  'https',
  'net',
  'child_process',
  'fastify',
  'fastify/*',
  '@fastify/*',
  '@kubernetes/*',
  'pino',
  'jose',
  'prom-client',
  'ajv',
  'ajv-formats',
  'kube-sim',
  'kube-sim/*',
  'sim-kit',
  'sim-kit/*',
];

/** The words every stage shares; pure, so the decision core may use them. */
const vocabulary = [
  'src/pipeline/pipeline-resource.ts',
  'src/pipeline/id.ts',
  'src/pipeline/object-key.ts',
  'src/pipeline/api-version.ts',
  'src/pipeline/flux-kinds.ts',
  'src/text/text.ts',
  'src/text/redact-url.ts',
  'src/time/kube-time.ts',
  'src/time/duration.ts',
  'src/json/json-equal.ts',
  'src/pipeline/halt-resource.ts',
];

/**
 * Pure modules: the decision core, the vocabulary, reading an object into a TargetStatus, and
 * computing a Pipeline status. No I/O, no framework, no clock, no randomness.
 */
const pureModules = [
  'src/evaluate/**/*.ts',
  // The promotion windows: their recurrence and time-zone adapter use libraries, but no clock
  // (time is an argument).
  'src/windows/**/*.ts',
  ...vocabulary,
  'src/verify/target-status.ts',
  'src/verify/revision-kinds.ts',
  'src/status/compute-status.ts',
  'src/status/view-change.ts',
  'src/status/verified-history.ts',
  'src/notify/alert-selection.ts',
];

const purity = {
  'no-restricted-globals': [
    'error',
    ...['process', 'setTimeout', 'setInterval', 'fetch', 'performance', 'crypto'].map((name) => ({
      name,
      message: 'This module is pure: take time and effects as inputs.',
    })),
  ],
  'no-restricted-properties': [
    'error',
    { object: 'Date', property: 'now', message: 'Take `now` as an input.' },
    { object: 'Math', property: 'random', message: 'Pure modules are deterministic.' },
  ],
  'no-restricted-syntax': [
    'error',
    {
      selector: "NewExpression[callee.name='Date'][arguments.length=0]",
      message: 'Take `now` as an input.',
    },
    statusWritesOnlyThere(),
    alertStatusWritesOnlyThere(),
  ],
};

/**
 * The Pipeline status has one writer (src/kube/status-writer.ts): everybody else hands it a
 * StatusChange, so the conflict policy and the "never write an unchanged status" rule hold.
 */
function statusWritesOnlyThere() {
  return {
    selector: "CallExpression[callee.property.name='replaceStatus']",
    message: 'Only src/kube/status-writer.ts writes the Pipeline status: hand it a StatusChange.',
  };
}

/** The PromotionAlert status, likewise, has one writer: src/notify/alert-status-writer.ts. */
function alertStatusWritesOnlyThere() {
  return {
    selector: "CallExpression[callee.property.name='replaceAlertStatus']",
    message:
      'Only src/notify/alert-status-writer.ts writes the PromotionAlert status: hand it an AlertStatusChange.',
  };
}

/**
 * A dependency is used through what it exports, never its files: a path into a package's
 * lib/, dist/, src/ or build/ (`pako/lib/zlib/deflate.js`) is its private inside, free to
 * change in any release. Part of every folder's pattern set below (a later config replaces a
 * rule's options, so each set carries it). The one path allowed is `ajv/dist/2020`: ajv has no
 * exports map, and that path is how its documentation says to import the draft 2020-12
 * validator (the vendored CDEvents schemas are 2020-12).
 */
const noDependencyInternals = {
  regex:
    '^(?!ajv/dist/2020(?:\\.js)?$)(?:@[^/.][^/]*/)?[^/.][^/]*/(?:.*/)?(?:lib|dist|src|build|cjs|esm|internal)(?:/|$)',
  message: "A dependency's private files: import what its package exports.",
};

/** Import boundaries, as pattern sets combined per folder below. */
const noSimOrDemo = {
  group: [
    '**/packages/**',
    'kube-sim',
    'kube-sim/*',
    'forge-sim',
    'forge-sim/*',
    'sim-kit',
    'sim-kit/*',
    '@promotion-gateway/*',
  ],
  message: 'The gateway never imports the simulator or the demo.',
};
const noHttpOrRoot = {
  group: [
    '../ingress/*',
    '../../ingress/*',
    '../server.js',
    '../index.js',
    '../wiring/*',
    '../../wiring/*',
  ],
  message: 'Only the HTTP layer imports ingress; nothing imports the composition root.',
};
const noQueues = { group: ['../hints/*'], message: 'The catalog does not know the queues.' };
const noStatus = {
  group: ['../status/*', '../../status/*'],
  message: 'promote writes its own records; the status is computed after it.',
};
const standalone = {
  group: ['../*', '!../clock.js'],
  message: 'The generic queue and the clock know no stage.',
};
const noAuth = {
  group: ['../auth/*', '../../auth/*'],
  message: 'auth consumes the validated configuration: config imports nothing of auth.',
};
const noGateway = {
  group: ['promotion-gateway', 'promotion-gateway/*', '../../../*'],
  message: 'The simulators stand alone: no import from the gateway.',
};
const noSimulators = {
  group: ['kube-sim', 'kube-sim/*', 'forge-sim', 'forge-sim/*', '../../*'],
  message: 'sim-kit is what the simulators share: it imports none of them.',
};

/**
 * One entry per folder (they do not overlap, since a later config replaces a rule's options):
 * the data flow runs ingress -> auth -> hints -> catalog -> verify -> evaluate -> promote ->
 * status; the composition root (wiring/gateway.ts, with its builders beside it) and the HTTP app
 * (ingress/http-app.ts) wire the stages together.
 */
const boundaries = [
  {
    files: ['**/*.ts', '**/*.mts', '**/*.js', '**/*.mjs'],
    patterns: [],
  },
  {
    files: [
      'src/*.ts',
      'src/wiring/**',
      'src/cli/**',
      'src/ingress/**',
      'src/auth/**',
      // The web view is an HTTP layer of its own beside ingress (whose errors and schemas it uses).
      'src/ui/**',
    ],
    patterns: [noSimOrDemo],
  },
  { files: ['src/config/**'], patterns: [noSimOrDemo, noAuth] },
  { files: ['src/catalog/**'], patterns: [noSimOrDemo, noHttpOrRoot, noQueues] },
  {
    files: [
      'src/hints/**',
      'src/approvals/**',
      'src/halts/**',
      'src/reconcile/**',
      'src/resync/**',
      'src/leadership/**',
      'src/verify/**',
      'src/kube/**',
      'src/status/**',
      'src/notify/**',
      'src/egress/**',
      'src/trains/**',
      'src/outbound/**',
      'src/forge/**',
      'src/pipeline/**',
      'src/windows/**',
      'src/text/**',
      'src/time/**',
      'src/json/**',
      'src/labels/**',
    ],
    patterns: [noSimOrDemo, noHttpOrRoot],
  },
  // checks run like promotions (through the forge client, outbound); like promote, they never
  // write the status.
  { files: ['src/promote/**', 'src/checks/**'], patterns: [noSimOrDemo, noHttpOrRoot, noStatus] },
  { files: ['src/queue/**', 'src/clock.ts'], patterns: [noSimOrDemo, standalone] },
  { files: ['packages/kube-sim/src/**', 'packages/forge-sim/src/**'], patterns: [noGateway] },
  { files: ['packages/sim-kit/src/**'], patterns: [noGateway, noSimulators] },
];

/**
 * The house rules the style guide states, checked: short files, small and simple functions,
 * import boundaries between the stages, and purity of the decision core and the vocabulary.
 * Exported so test/unit/lint-rules.test.ts can show each rule refusing what it should.
 */
export const houseRules = [
  {
    // House rules for the product's code: short files, small and simple functions.
    files: ['src/**/*.ts', 'packages/*/src/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 300 }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
      complexity: ['error', 20],
      'max-depth': ['error', 4],
      'max-params': ['error', 5],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/kube/status-writer.ts', 'src/notify/alert-status-writer.ts', ...pureModules],
    rules: {
      'no-restricted-syntax': ['error', statusWritesOnlyThere(), alertStatusWritesOnlyThere()],
    },
  },
  // Each writer may call its own kind's write, never the other's.
  {
    files: ['src/kube/status-writer.ts'],
    rules: { 'no-restricted-syntax': ['error', alertStatusWritesOnlyThere()] },
  },
  {
    files: ['src/notify/alert-status-writer.ts'],
    rules: { 'no-restricted-syntax': ['error', statusWritesOnlyThere()] },
  },
  ...boundaries.map(({ files, patterns }) => ({
    files,
    rules: {
      'no-restricted-imports': ['error', { patterns: [...patterns, noDependencyInternals] }],
    },
  })),
  {
    files: pureModules,
    rules: {
      ...purity,
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            noDependencyInternals,
            { group: impureModules, message: 'This module is pure: no I/O or framework imports.' },
            {
              group: [
                '../*/**',
                '!../evaluate/**',
                '!../windows/**',
                ...vocabulary.map((f) => `!../${f.slice(4).replace(/\.ts$/, '.js')}`),
              ],
              message: 'A pure module imports only pure modules (and types from anywhere).',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
];

export default tseslint.config(
  {
    ignores: ['**/dist/**', 'node_modules/**', 'coverage/**', 'bench/results/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  ...tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // `const { dropped, ...kept } = x` is how a field is left out of a copy.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      // client-node's generated models are data classes whose documented use is object literals.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Read configuration through src/config only.',
        },
      ],
    },
  },
  {
    // Config loading, the process entries and tooling are the only readers of the environment.
    files: [
      'src/config/**/*.ts',
      'src/server.ts',
      'src/kubectl-promotion.ts',
      'packages/*/src/cli.ts',
      'bench/**/*.ts',
      'test/**/*.ts',
      'packages/*/test/**/*.ts',
    ],
    rules: { 'no-restricted-syntax': 'off' },
  },
  ...houseRules,
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'packages/*/test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
  {
    files: ['eslint.config.js', 'esbuild.config.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: {
        process: 'readonly',
        console: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
      },
    },
  },
  {
    // The web view's page scripts (docs/ui.md): plain ES modules run by the browser as served.
    files: ['web/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'EventSource',
          'HTMLElement',
          'HTMLInputElement',
          'HTMLTableElement',
          'HTMLTableRowElement',
          'HTMLTableSectionElement',
          'HTMLButtonElement',
          'Element',
          'navigator',
          'CustomEvent',
          'performance',
          'requestAnimationFrame',
          'setTimeout',
          'clearTimeout',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
);
