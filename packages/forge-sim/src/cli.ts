#!/usr/bin/env node
/**
 * The `forge-sim` command: a simulated GitHub or GitLab on loopback until Ctrl-C. A command-line
 * mistake prints the usage and exits 2; a failure while running (a port in use) exits 1.
 */
import { runSimCommand } from 'sim-kit';
import { FORGE_USAGE, runForge } from './run-forge.js';

runSimCommand({ name: 'forge-sim', usage: FORGE_USAGE, run: runForge });
