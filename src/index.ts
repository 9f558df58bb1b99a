/**
 * The promotion-gateway package as a library: what the `serve` command uses to run a gateway,
 * for embedding it (the demo) and measuring it (the benchmarks). Everything else is internal.
 */
export { createGateway } from './wiring/gateway.js';
// The kubeconfig a gateway is given, from the client library inside the gateway's bundle
// (esbuild.config.js): a caller that loaded its own copy of @kubernetes/client-node would hold
// the library twice.
export { KubeConfig } from '@kubernetes/client-node';
export type { Gateway, GatewayOptions, GatewayStatus } from './wiring/gateway.js';
export { ConfigError, defaultConfig, loadConfig } from './config/load.js';
export type { ConfigInput, ConfigSource } from './config/load.js';
export type { GatewayConfig } from './config/gateway-config.js';
export { createLogger } from './log.js';
export type { GatewayLogger } from './log.js';
export { untilSignal } from './cli/serve.js';
export type { Env } from './cli/serve.js';
export { signBody } from './auth/hmac.js';
export type { KubeObject } from './kube/ports.js';
export type { PipelineView } from './reconcile/view.js';
// The policy gates of GET /v1/pipelines, and the line `status` prints of them, for the demo.
export type { PolicyView } from './evaluate/policy-view.js';
export { policyLine } from './cli/policy-line.js';
export type { ResyncReport } from './resync/resync.js';
// The web view built on its own, for the benchmark's render and update figures (docs/ui.md).
export { buildUi } from './ui/app.js';
export type { UiApp, UiDeps } from './ui/app.js';
export type { FleetSource } from './ui/fleet-rows.js';
export type { FlushReport } from './ui/live-hub.js';
export type { PipelineId } from './pipeline/id.js';
export type { Pipeline, PromotionRecord } from './pipeline/pipeline-resource.js';
export { EventAnnotations, PromoteEventReason } from './promote/strategies/notification.js';
export { signStatement, STATEMENT_ALGORITHMS } from './auth/statement.js';
export type { StatementClaims } from './auth/statement.js';
export { managementAccess, TARGET_ACCESS } from './kube/access.js';
export type { AccessRule } from './kube/access.js';
// What a chart version may be, so that the demo refuses what the gateway would not verify.
export { isSemVer2, quote } from './verify/revision-kinds.js';
// The command-line conventions, so that the demo's commands parse and answer like the gateway's.
export {
  flagOptions,
  parseOrHelp,
  required,
  runCommand,
  UsageError,
  valueOptions,
} from './cli/args.js';
export type { CommandOptions, CommandValues, FailureLabels } from './cli/args.js';
