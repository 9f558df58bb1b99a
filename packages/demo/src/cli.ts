#!/usr/bin/env node
/** The demo's process entry: the commands of commands.ts on this process's streams. */
import { main } from './commands.js';

main(process.argv.slice(2), {
  out: process.stdout,
  err: process.stderr,
  env: process.env,
  tty: process.stdout.isTTY,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`demo: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
