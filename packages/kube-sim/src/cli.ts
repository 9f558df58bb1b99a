#!/usr/bin/env node
/**
 * The `kube-sim` command: a simulated fleet on loopback until Ctrl-C. A command-line mistake
 * prints the usage and exits 2; a failure while running (a port in use) exits 1.
 */
import { runSimCommand } from 'sim-kit';
import { runSim, SIM_USAGE } from './run-sim.js';

runSimCommand({ name: 'kube-sim', usage: SIM_USAGE, run: runSim });
