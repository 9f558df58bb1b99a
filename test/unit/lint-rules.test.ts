/**
 * The house rules in eslint.config.js refuse what the style guide forbids: each case lints a
 * small snippet as if it were a file at that path (with only the house rules, no type info)
 * and expects the rule to fire, and a harmless variant not to.
 */
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { houseRules } from '../../eslint.config.js';

const eslint = new ESLint({
  cwd: new URL('../..', import.meta.url).pathname,
  overrideConfigFile: true,
  overrideConfig: [
    { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },
    ...houseRules,
  ],
});

async function ruleIds(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

describe('import boundaries', () => {
  it.each([
    ['src/catalog/x.ts', "import { HintQueue } from '../hints/hint-queue.js';"],
    ['src/reconcile/x.ts', "import { eventsRoutes } from '../ingress/flux-event-routes.js';"],
    ['src/verify/x.ts', "import { createGateway } from '../wiring/gateway.js';"],
    ['src/promote/x.ts', "import { computeStatus } from '../status/pipeline-status.js';"],
    ['src/queue/x.ts', "import type { ObjectKey } from '../pipeline/object-key.js';"],
    ['src/ingress/x.ts', "import { startFleet } from 'kube-sim';"],
    ['src/ingress/http-app.ts', "import { runDemo } from '../../packages/demo/src/commands.js';"],
    ['packages/kube-sim/src/x.ts', "import { createGateway } from 'promotion-gateway';"],
    ['packages/forge-sim/src/x.ts', "import { createGateway } from 'promotion-gateway';"],
    ['packages/sim-kit/src/x.ts', "import { createGateway } from 'promotion-gateway';"],
    ['packages/sim-kit/src/x.ts', "import { startFleet } from 'kube-sim';"],
    ['packages/sim-kit/src/x.ts', "import { startForge } from '../../forge-sim/src/index.js';"],
    ['src/ingress/x.ts', "import { readBody } from 'sim-kit';"],
    ['src/config/x.ts', "import { importStaticKey } from '../auth/keys.js';"],
    ['src/config/x.ts', "import type { Identity } from '../auth/identity.js';"],
  ])('%s may not: %s', async (path, code) => {
    expect(await ruleIds(path, code)).toContain('no-restricted-imports');
  });

  it.each([
    ['src/catalog/x.ts', "import { objectKeyId } from '../pipeline/object-key.js';"],
    ['src/reconcile/x.ts', "import { PipelineQueue } from '../hints/pipeline-queue.js';"],
    ['src/queue/x.ts', "import { realScheduler } from '../clock.js';"],
    ['src/ingress/http-app.ts', "import { eventsRoutes } from './flux-event-routes.js';"],
    ['packages/kube-sim/src/x.ts', "import { readBody } from 'sim-kit';"],
    ['src/auth/x.ts', "import { importPublicKey } from '../config/keys.js';"],
  ])('%s may: %s', async (path, code) => {
    expect(await ruleIds(path, code)).toEqual([]);
  });
});

describe("no dependency's private files", () => {
  it.each([
    ['src/catalog/x.ts', "import deflate from 'pako/lib/zlib/deflate.js';"],
    ['src/evaluate/x.ts', "import type ZStream from 'pako/lib/zlib/zstream.js';"],
    [
      'src/kube/x.ts',
      "import { V1Lease } from '@kubernetes/client-node/dist/gen/models/V1Lease.js';",
    ],
    [
      'test/unit/x.test.ts',
      "import { ObjectSerializer } from '@kubernetes/client-node/dist/index.js';",
    ],
    ['bench/x.ts', "import { Ajv } from 'ajv/dist/core.js';"],
  ])('%s may not: %s', async (path, code) => {
    expect(await ruleIds(path, code)).toContain('no-restricted-imports');
  });

  it.each([
    ['src/kube/x.ts', "import { KubeConfig } from '@kubernetes/client-node';"],
    ['src/promote/x.ts', "import { http } from 'isomorphic-git/http/node';"],
    ['test/unit/x.test.ts', "import { readFile } from 'node:fs/promises';"],
    ['test/unit/x.test.ts', "import { f } from '../../src/catalog/x.js';"],
    ['packages/demo/test/x.test.ts', "import { main } from '../src/commands.js';"],
    ['test/support/x.ts', "import { Ajv2020 } from 'ajv/dist/2020.js';"],
  ])('%s may: %s', async (path, code) => {
    expect(await ruleIds(path, code)).toEqual([]);
  });
});

describe('purity of the decision core and the vocabulary', () => {
  it.each([
    ['src/evaluate/x.ts', "import { readFileSync } from 'node:fs';", 'no-restricted-imports'],
    [
      'src/evaluate/x.ts',
      "import { Verifier } from '../verify/verifier.js';",
      'no-restricted-imports',
    ],
    ['src/text/text.ts', "import { pino } from 'pino';", 'no-restricted-imports'],
    ['src/evaluate/x.ts', 'export const t = Date.now();', 'no-restricted-properties'],
    ['src/evaluate/x.ts', 'export const r = Math.random();', 'no-restricted-properties'],
    ['src/evaluate/x.ts', 'export const d = new Date();', 'no-restricted-syntax'],
    ['src/verify/target-status.ts', 'setTimeout(() => undefined, 1);', 'no-restricted-globals'],
  ])('%s refuses %s', async (path, code, rule) => {
    expect(await ruleIds(path, code)).toContain(rule);
  });

  it('lets the core use the vocabulary and type imports from anywhere', async () => {
    const code = [
      "import { display } from '../text/text.js';",
      "import type { Verifier } from '../verify/verifier.js';",
      'export const f = (v: Verifier | undefined): string => display(String(v));',
    ].join('\n');
    expect(await ruleIds('src/evaluate/x.ts', code)).toEqual([]);
  });
});

describe('size and complexity', () => {
  it('refuses a file over 300 lines', async () => {
    const code = Array.from({ length: 301 }, (_, i) => `export const v${i} = ${i};`).join('\n');
    expect(await ruleIds('src/kube/x.ts', code)).toContain('max-lines');
  });

  it('refuses a function over 80 lines, and one with too many branches', async () => {
    const long = `export function f(): number {\n  let n = 0;\n${'  n += 1;\n'.repeat(80)}  return n;\n}`;
    expect(await ruleIds('src/kube/x.ts', long)).toContain('max-lines-per-function');
    const branches = Array.from({ length: 21 }, (_, i) => `  if (x === ${i}) return ${i};`);
    const complex = `export function g(x: number): number {\n${branches.join('\n')}\n  return -1;\n}`;
    expect(await ruleIds('src/kube/x.ts', complex)).toContain('complexity');
  });

  it('refuses more than five parameters', async () => {
    const code = 'export function h(a: 1, b: 2, c: 3, d: 4, e: 5, f: 6): number { return a + f; }';
    expect(await ruleIds('packages/kube-sim/src/x.ts', code)).toContain('max-params');
  });
});

describe('one writer per status', () => {
  const pipelineWrite =
    'export const w = (p: { replaceStatus(o: object): void }) => p.replaceStatus({});';
  const alertWrite =
    'export const w = (p: { replaceAlertStatus(o: object): void }) => p.replaceAlertStatus({});';

  it.each([
    ['src/notify/x.ts', alertWrite],
    ['src/notify/x.ts', pipelineWrite],
    ['src/kube/status-writer.ts', alertWrite],
    ['src/notify/alert-status-writer.ts', pipelineWrite],
    ['src/notify/alert-selection.ts', alertWrite],
  ])('%s may not: %s', async (path, code) => {
    expect(await ruleIds(path, code)).toContain('no-restricted-syntax');
  });

  it.each([
    ['src/kube/status-writer.ts', pipelineWrite],
    ['src/notify/alert-status-writer.ts', alertWrite],
  ])('%s may: %s', async (path, code) => {
    expect(await ruleIds(path, code)).toEqual([]);
  });
});
