/**
 * The embedded demo as a library, for the benchmarks: the demo fleet and its objects.
 */
export { startDemoFleet, GATEWAY_USER } from './fleet.js';
export type { DemoFleet } from './fleet.js';
export {
  APP_NAME,
  APP_NAMESPACE,
  APP_RELEASE,
  DEMO_ENVIRONMENTS,
  FLUX_NAMESPACE,
  INITIAL_VERSION,
  demoPipeline,
} from './objects.js';
