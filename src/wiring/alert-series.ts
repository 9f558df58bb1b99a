/**
 * The series the alerting rules (manifests/monitoring/) take increase() of, created at 0 when
 * the gateway starts: a counter series first scraped at 1 shows no increase, so without this the
 * first failed promotion, refused read or unannounced change after a restart would pass with no
 * alert. Every label value here is one the gateway would write anyway (configured clusters,
 * fixed words), so this adds no series it could not have.
 */
import type { ReadFailureReason } from '../kube/ports.js';
import type { WriteAttempt } from '../kube/conditional-write.js';
import type { GatewayMetrics } from '../metrics.js';
import { FLUX_APP_KIND_NAMES } from '../pipeline/flux-kinds.js';

/** The read results the cluster alerts count, and `ok`, their denominator. */
const READ_RESULTS: readonly ('ok' | ReadFailureReason)[] = [
  'ok',
  'Unauthorized',
  'Forbidden',
  'UnknownCluster',
  'CertificateRejected',
  'Unavailable',
  'Timeout',
  'ServerError',
];
const STATUS_WRITES: readonly WriteAttempt[] = ['written', 'conflict', 'unchanged', 'contended'];
/** The promotion outcomes the dashboard and PromotionGatewayPromotionsFailing read. */
const PROMOTION_OUTCOMES = ['Promoted', 'Failed'];

/** Creates, at 0, the alerted series of `metrics` for each configured cluster in `clusters`. */
export function zeroAlertSeries(metrics: GatewayMetrics, clusters: readonly string[]): void {
  for (const outcome of PROMOTION_OUTCOMES) metrics.promotions.inc({ outcome }, 0);
  for (const result of STATUS_WRITES) metrics.statusWrites.inc({ result }, 0);
  for (const result of ['ok', 'partial']) metrics.resyncDuration.zero({ result });
  for (const name of clusters) {
    const cluster = metrics.clusterLabel(name);
    for (const result of READ_RESULTS) metrics.clusterReads.inc({ cluster, result }, 0);
    for (const kind of FLUX_APP_KIND_NAMES) metrics.unannouncedChanges.inc({ cluster, kind }, 0);
  }
}
