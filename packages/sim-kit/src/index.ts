/**
 * sim-kit: the skeleton kube-sim and forge-sim share (command runner, request bodies, request
 * accounting, fault bookkeeping). See its README.md.
 */
export { readBody } from './body.js';
export { isUsageError, portOption, runSimCommand, UsageError, waitForStop } from './cli.js';
export type { SimCommand } from './cli.js';
export { ShapeCounter } from './counter.js';
export { FaultBook } from './faults.js';
export type { DelayStats } from './faults.js';
