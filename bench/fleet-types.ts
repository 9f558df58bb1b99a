/**
 * Messages between the benchmark and its kube-sim fleet child process.
 */
import type { KubeObject } from 'promotion-gateway';

/** What the parent needs to configure a gateway against the child's fleet. */
export interface FleetInfo {
  /** kube-sim admin endpoint (request accounting). */
  adminUrl: string;
  /** Kubeconfig of the management cluster for the gateway's least-privilege user. */
  managementKubeconfig: string;
  /** Per environment cluster: the generic-hmac key (text) its Flux Provider signs with. */
  hmacKeys: Record<string, string>;
  /** Every cluster name, management first. */
  clusters: string[];
  /** The dev cluster's podinfo HelmRelease, for realistic event bodies. */
  helmRelease: KubeObject;
}

/** Parent -> child. Closing the IPC channel stops the fleet and the child. */
export interface ToFleet {
  type: 'rss';
  id: number;
}

/** Child -> parent. */
export type FleetMessage =
  { type: 'ready'; info: FleetInfo } | { type: 'rss'; id: number; rss: number };
