/**
 * The operator's commands, one table for both ways in: the `promotion-gateway` bin
 * (src/server.ts, which adds `serve`) and the kubectl plugin (`kubectl promotion ...`,
 * src/kubectl-promotion.ts). Each entry says what shell completion offers for it: its
 * subcommands, and the flags its usage text names.
 */
import { APPROVALS_USAGE, runApprovals } from './approvals.js';
import type { CommandIo } from './args.js';
import { DIFF_USAGE, runDiff } from './diff.js';
import { HALTS_USAGE, runHalts } from './halts.js';
import { ROLLBACK_USAGE, runRollback } from './rollback.js';
import { runStatus, STATUS_USAGE } from './status.js';
import { runWhatIf, WHAT_IF_USAGE } from './what-if.js';

/** What a command writes to and reads: the environment, standard output and error. */
export interface OperatorIo extends CommandIo {
  err: NodeJS.WritableStream;
}

/** One command: what it does in a line, its subcommands, its usage text and how to run it. */
export interface OperatorCommand {
  summary: string;
  subcommands: readonly string[];
  /** The usage text its flags are read from for completion ('' when it is not loaded eagerly). */
  usage: string;
  run(args: string[], io: OperatorIo): Promise<number>;
}

/** The operator's commands by name, in the order help lists them. */
export const OPERATOR_COMMANDS: ReadonlyMap<string, OperatorCommand> = new Map([
  [
    'status',
    {
      summary: 'the fleet per environment: what runs, what waits and why',
      subcommands: [],
      usage: STATUS_USAGE,
      run: (args: string[], io: OperatorIo) => runStatus(args, io),
    },
  ],
  [
    'diff',
    {
      summary: 'what a pending promotion would change',
      subcommands: [],
      usage: DIFF_USAGE,
      run: (args: string[], io: OperatorIo) => runDiff(args, io),
    },
  ],
  [
    'what-if',
    {
      summary: 'every environment decided under a proposed policy',
      subcommands: [],
      usage: WHAT_IF_USAGE,
      run: (args: string[], io: OperatorIo) => runWhatIf(args, io),
    },
  ],
  [
    'approvals',
    {
      summary: "an approver's keys and signed approvals",
      subcommands: ['keygen', 'sign', 'verify'],
      usage: APPROVALS_USAGE,
      run: (args: string[], io: OperatorIo) => runApprovals(args, io.env, io.out),
    },
  ],
  [
    'halts',
    {
      summary: "an approver's signed stop-the-line, and its lifting",
      subcommands: ['sign', 'lift'],
      usage: HALTS_USAGE,
      run: (args: string[], io: OperatorIo) => runHalts(args, io.env, io.out),
    },
  ],
  [
    'rollback',
    {
      summary: 'a signed request to roll an environment back',
      subcommands: [],
      usage: ROLLBACK_USAGE,
      run: (args: string[], io: OperatorIo) => runRollback(args, io),
    },
  ],
  [
    'flux-config',
    {
      summary: "each cluster's Flux Provider, Alert and keys for the gateway",
      subcommands: [],
      // Loaded on first use (its own chunk): its flags are not offered.
      usage: '',
      run: async (args: string[], io: OperatorIo) =>
        (await import('./flux-config.js')).runFluxConfig(args, io),
    },
  ],
]);
