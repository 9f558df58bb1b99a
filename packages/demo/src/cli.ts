#!/usr/bin/env node
/** The demo's process entry: the commands of commands.ts on this process's streams. */
import { main } from './commands.js';

/** The gateway's own floor (src/server.ts): Node.js 20 is past its end of life. */
const MIN_NODE_MAJOR = 22;

if (Number(process.versions.node.split('.')[0]) < MIN_NODE_MAJOR) {
  process.stderr.write(
    `demo: needs Node.js ${String(MIN_NODE_MAJOR)} or later (this is ${process.version}, past its end of life)\n`,
  );
  process.exitCode = 1;
} else {
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
}
