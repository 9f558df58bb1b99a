/**
 * kube-sim: a simulated multi-cluster Kubernetes API server for tests, the demo and benchmarks.
 * See its README.md.
 */
export { startFleet } from './fleet.js';
export type { Fleet, FleetOptions } from './fleet.js';
export { SimCluster } from './cluster.js';
export type { SimClusterOptions } from './cluster.js';
export type { AccessRule } from './auth.js';
// The whole fault vocabulary, the controller's own types included: `cluster.faults` is one.
export type * from './faults.js';
export type { RequestRecord, RequestFilter, RequestSnapshot } from './accounting.js';
export type { SimObject } from './resources.js';
export { SimError } from './status-errors.js';
export type { KubeStatus, StatusCause } from './status-errors.js';
export { applyAll, applyFiles, parseManifests } from './manifests.js';
export { runSim, SIM_USAGE } from './run-sim.js';
