// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Modules the pure decision core may never reach: anything that does I/O or reads a clock. */
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
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  ...tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
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
    // Config loading and the CLI entry are the only places that may read the environment.
    files: ['src/config/**/*.ts', 'src/server.ts', 'bench/**/*.ts', 'test/**/*.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    // The decision core is pure: no I/O, no framework, no clock, no randomness.
    files: ['src/evaluate/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: impureModules, message: 'src/evaluate is pure: no I/O or framework imports.' },
            {
              group: ['../*', '!../evaluate/*'],
              message: 'src/evaluate may import only its own modules and types.',
              allowTypeImports: true,
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'src/evaluate is pure.' },
        { name: 'setTimeout', message: 'src/evaluate is pure.' },
        { name: 'setInterval', message: 'src/evaluate is pure.' },
        { name: 'fetch', message: 'src/evaluate is pure.' },
        { name: 'performance', message: 'src/evaluate is pure.' },
        { name: 'crypto', message: 'src/evaluate is pure.' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Take `now` as an input.' },
        { object: 'Math', property: 'random', message: 'src/evaluate is deterministic.' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'Take `now` as an input.',
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
  {
    files: ['eslint.config.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { process: 'readonly', console: 'readonly' },
    },
  },
);
