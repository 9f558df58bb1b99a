#!/usr/bin/env node
/**
 * The kubectl plugin's process entry (`kubectl-promotion`, and `kubectl_complete-promotion` for
 * kubectl's shell completion: the same file, told apart by the name it was started as). Like
 * src/server.ts it is the only place here that reads the process's environment.
 */
import { runPlugin } from './cli/kubectl-plugin.js';
import { redactUrls } from './text/redact-url.js';

const io = { env: process.env, out: process.stdout, err: process.stderr };

runPlugin(process.argv.slice(2), io, process.argv[1] ?? '').then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`${redactUrls(err instanceof Error ? err.message : String(err))}\n`);
    process.exitCode = 1;
  },
);
