/**
 * `forge-sim`: starts a simulated forge, creates the repositories and tokens asked for, prints
 * where everything is, and runs until SIGINT/SIGTERM (or the given abort signal).
 */
import { parseArgs } from 'node:util';
import { portOption, UsageError, waitForStop } from 'sim-kit';
import { startForge } from './forge.js';
import type { ForgeKind } from './tokens.js';

/** Usage text of the forge-sim command. */
export const FORGE_USAGE = `Usage: forge-sim [options]
  --kind github|gitlab   which forge to play (default: github)
  --port N               listen port on 127.0.0.1 (default: ephemeral)
  --repo OWNER/NAME      repository to create with a README on main (repeatable)
  --protect REPO:BRANCH  protect a branch: pushes to it are refused (repeatable)
  --token NAME           issue a token for user NAME with the default scopes (repeatable)
  --help                 this text
Admin routes (unauthenticated) under /_forge: GET|DELETE /requests, GET|PUT|PATCH|DELETE /faults,
POST /merge and POST /close with {"repo": "...", "number": N}.
`;

/** Options for tests and embedding: `signal` stops the forge instead of a process signal. */
export interface RunForgeOptions {
  signal?: AbortSignal;
}

interface ForgeArgs {
  kind: ForgeKind;
  port: number;
  repos: string[];
  protect: { repo: string; branch: string }[];
  tokens: string[];
}

function parse(argv: string[]): ForgeArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      kind: { type: 'string', default: 'github' },
      port: { type: 'string', default: '0' },
      repo: { type: 'string', multiple: true, default: [] },
      protect: { type: 'string', multiple: true, default: [] },
      token: { type: 'string', multiple: true, default: [] },
    },
    strict: true,
  });
  const kind = values.kind;
  if (kind !== 'github' && kind !== 'gitlab')
    throw new UsageError(`--kind must be github or gitlab, got ${kind}`);
  const port = portOption(values.port, '--port');
  const protect = values.protect.map((p) => {
    const colon = p.lastIndexOf(':');
    if (colon <= 0) throw new UsageError(`--protect takes REPO:BRANCH, got ${p}`);
    return { repo: p.slice(0, colon), branch: p.slice(colon + 1) };
  });
  return {
    kind,
    port,
    repos: values.repo,
    protect,
    tokens: values.token,
  };
}

/** Runs the forge until stopped. Throws on bad arguments (the caller prints FORGE_USAGE). */
export async function runForge(
  argv: string[],
  out: NodeJS.WritableStream,
  opts: RunForgeOptions = {},
): Promise<void> {
  const args = parse(argv);
  const forge = await startForge({ kind: args.kind, port: args.port });
  try {
    for (const repo of args.repos) {
      await forge.createRepo(repo, { 'README.md': `# ${repo}\n` });
      out.write(`forge-sim repository ${repo}: ${forge.cloneUrl(repo)}\n`);
    }
    for (const { repo, branch } of args.protect) forge.protectBranch(repo, branch);
    for (const name of args.tokens) out.write(`forge-sim token ${name}: ${forge.addToken(name)}\n`);
    out.write(
      `forge-sim ${args.kind}: ${forge.url} (REST ${forge.apiUrl}, admin ${forge.url}/_forge)\n`,
    );
    out.write('forge-sim running; press Ctrl-C to stop\n');
    await waitForStop(opts.signal);
  } finally {
    await forge.close();
    out.write('forge-sim stopped\n');
  }
}
