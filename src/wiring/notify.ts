/**
 * Wiring of the notifications stage: PromotionAlerts listed and checked (src/notify/alert-
 * source.ts), their Secrets read (alert-credentials.ts), events formatted (delivery-request.ts)
 * and sent (delivery.ts), their status written by the one alert writer, all driven by the
 * Notifier on the Lease holder. Nothing here decides anything.
 */
import { AlertStatusWriter } from '../notify/alert-status-writer.js';
import { KubeAlertWriter } from '../kube/alert-writer.js';
import { KubeObjectReader } from '../kube/reader.js';
import { kubeSecretReader } from '../kube/secret-reader.js';
import type { PipelineCatalog } from '../catalog/catalog.js';
import { pipelineId, pipelineIdOf } from '../pipeline/id.js';
import { AddressGuard } from '../egress/address-guard.js';
import { guardedFetch } from '../egress/guarded-fetch.js';
import { addressProblem, addressRefusal } from '../notify/alert-address.js';
import { alertTimeoutMs, type AlertCheck } from '../notify/alert-check.js';
import { AlertCredentialsReader } from '../notify/alert-credentials.js';
import type { PromotionAlert, UncheckedAlert } from '../notify/alert-resource.js';
import { AlertSource } from '../notify/alert-source.js';
import { attemptDelivery } from '../notify/delivery.js';
import { formatDelivery, type DeliveryFormat } from '../notify/delivery-request.js';
import { notifyMetrics } from '../notify/notify-metrics.js';
import { Notifier, type NotifierPorts, type Prepared } from '../notify/notifier.js';
import { compileTemplate } from '../notify/template.js';
import type { Runtime } from './runtime.js';
import { AlertDirectory } from '../notify/alert-directory.js';
import { owedEvents, withOwedEvents, type OutboxPolicy } from '../notify/outbox-record.js';
import { OutboxCatchUp } from '../notify/outbox-catch-up.js';
import type { StatusWriter } from '../kube/status-writer.js';
import type { NotificationType } from '../notify/notification-event.js';
import type { Pipeline, PipelineStatus } from '../pipeline/pipeline-resource.js';
import type { TrainSelection } from '../notify/notifier.js';
import type { PromotionTrain } from '../trains/train-resource.js';
import type { TrainOutboxPolicy } from '../notify/train-events.js';

/** How often every replica lists the alerts, so its status writes record what they select. */
const ALERT_LISTING_MS = 5_000;

/** The alerts as this replica knows them: listed, and what their selection wants recorded. */
export interface AlertKnowledge {
  source: AlertSource;
  directory: AlertDirectory;
  /** Lists the alerts now and every few seconds (every replica); returns the stop. */
  start(): () => void;
}

/** The alert listing and directory of this gateway; nothing is listed until start(). */
export function alertKnowledge(rt: Runtime): AlertKnowledge {
  const { config, calls, management } = rt;
  const settings = config.notifications;
  const source = new AlertSource(new KubeObjectReader(management, calls), {
    namespaces: config.pipelineNamespaces,
    policy: settings,
  });
  const directory = new AlertDirectory(settings);
  const refresh = async (): Promise<void> => {
    const listed = await source.list();
    if (listed.ok) directory.update(listed.alerts);
  };
  return {
    source,
    directory,
    start: () => {
      let cancel: (() => void) | undefined;
      let stopped = false;
      const loop = (): void => {
        void refresh()
          .catch(() => undefined)
          .finally(() => {
            if (!stopped) cancel = rt.scheduler.setTimer(ALERT_LISTING_MS, loop);
          });
      };
      if (settings.enabled) loop();
      return () => {
        stopped = true;
        cancel?.();
      };
    },
  };
}

/**
 * What every status write of this gateway completes its status with: the events it owes the
 * alerts that select it (notify/outbox-record.ts); nothing while notifications are off.
 */
export function outboxCompletion(
  rt: Runtime,
  alerts: Pick<AlertKnowledge, 'directory'>,
): ((stored: Pipeline, next: PipelineStatus) => PipelineStatus) | undefined {
  if (!rt.config.notifications.enabled) return undefined;
  const policy = outboxPolicy(rt, alerts);
  return (stored, next) => withOwedEvents(stored, next, rt.now(), policy);
}

/** The outbox's policy of this gateway: the horizon, and the alerts this replica knows. */
function outboxPolicy(rt: Runtime, alerts: Pick<AlertKnowledge, 'directory'>): OutboxPolicy {
  return {
    horizonMs: rt.config.notifications.horizonMs,
    wants: (pipeline: Pipeline, type: NotificationType) => alerts.directory.wants(pipeline, type),
    viewUrl: rt.config.ui?.externalUrl,
  };
}

/** The Lease holder's catch-up of outboxes, writing through the one status writer. */
function outboxCatchUp(
  rt: Runtime,
  alerts: Pick<AlertKnowledge, 'directory'>,
  status: Pick<StatusWriter, 'apply'>,
): OutboxCatchUp {
  const policy = outboxPolicy(rt, alerts);
  return new OutboxCatchUp({
    policy,
    now: rt.now,
    record: async (pipeline) => {
      await status.apply(pipeline, (stored) => {
        if (owedEvents(stored, rt.now(), policy).length === 0) return { keep: undefined };
        const next = withOwedEvents(stored, stored.status ?? {}, rt.now(), policy);
        return { write: next, verdict: undefined };
      });
    },
  });
}

/** Builds the notifier of this gateway; it does nothing until start() and while not leading. */
export function notifier(
  rt: Runtime,
  sources: {
    catalog: Pick<PipelineCatalog, 'heads' | 'get'>;
    trains: () => readonly PromotionTrain[];
  },
  isLeader: () => boolean,
  alerts: AlertKnowledge,
  status: Pick<StatusWriter, 'apply'>,
): Notifier {
  const { config } = rt;
  const { catalog } = sources;
  const settings = config.notifications;
  const metrics = notifyMetrics(rt.metrics.registry, rt.now);
  return new Notifier({
    ports: alertPorts(rt, alerts),
    pipelines: () => catalog.heads(),
    whole: (head) => catalog.get(pipelineIdOf(head)),
    isLeader: () => settings.enabled && isLeader(),
    clock: rt.now,
    random: rt.random,
    logger: rt.logger,
    settings: {
      retry: {
        initialMs: settings.retryBaseMs,
        maxMs: settings.retryMaxMs,
        horizonMs: settings.horizonMs,
      },
      tickMs: settings.intervalMs,
      handover: config.leaderElection.enabled,
      selection: settings,
    },
    onResult: metrics.onResult,
    onBacklog: metrics.onBacklog,
    catchUp: outboxCatchUp(rt, alerts, status),
    trains: () => sources.trains().map((train) => trainSelection(train, catalog)),
  });
}

/** A train and its members as an alert's selection reads them (their labels from the catalog). */
function trainSelection(
  train: PromotionTrain,
  catalog: Pick<PipelineCatalog, 'get'>,
): TrainSelection {
  const { namespace } = train.metadata;
  const members = (train.status?.members ?? []).map((name) => {
    const labels = catalog.get(pipelineId({ namespace, name }))?.metadata.labels;
    return { metadata: { namespace, name, ...(labels === undefined ? {} : { labels }) } };
  });
  return { train, members };
}

/**
 * Which events a train's outbox records (resync/train-pass.ts): those some alert this replica
 * knows wants, of a member of the train; none while notifications are off.
 */
export function trainOutboxPolicy(
  rt: Runtime,
  alerts: Pick<AlertKnowledge, 'directory'>,
  catalog: Pick<PipelineCatalog, 'get'>,
): Pick<TrainOutboxPolicy, 'horizonMs' | 'wants'> | undefined {
  if (!rt.config.notifications.enabled) return undefined;
  return {
    horizonMs: rt.config.notifications.horizonMs,
    wants: (train, type) =>
      trainSelection(train, catalog).members.some((m) => alerts.directory.wants(m, type)),
  };
}

/** The notifier's I/O over the management cluster and the network. */
function alertPorts(rt: Runtime, alerts: AlertKnowledge): NotifierPorts {
  const { config, calls, management } = rt;
  const settings = config.notifications;
  const { source, directory } = alerts;
  const writer = new AlertStatusWriter(new KubeAlertWriter(management, calls), {
    scheduler: rt.scheduler,
    random: rt.random,
  });
  const credentials = new AlertCredentialsReader(kubeSecretReader(management, calls), {
    now: rt.now,
  });
  const guard = new AddressGuard({
    allowedUrlPrefixes: settings.allowedUrlPrefixes,
    setting: 'notifications.allowedUrlPrefixes',
    apiServers: rt.apiServers,
  });
  const send = rt.fetch ?? guardedFetch(guard);
  const ports: NotifierPorts = {
    listAlerts: async () => {
      const listed = await source.list();
      if (!listed.ok) throw new Error(listed.reason);
      directory.update(listed.alerts);
      return [
        ...listed.alerts.map(withTemplateChecked),
        ...listed.invalid.map(({ alert, problem }) => ({ ok: false as const, alert, problem })),
      ];
    },
    readAlert: (alert) => writer.read(alert.metadata),
    applyStatus: async (alert, change) => {
      const written = await writer.apply(alert, (stored: UncheckedAlert) => {
        const status = change(stored);
        return status === undefined ? { keep: undefined } : { write: status, verdict: undefined };
      });
      return written.outcome === 'Written';
    },
    prepare: async (alert) => {
      const read = await credentials.readAlertCredentials(alert);
      if (!read.ok) return { ok: false, reason: read.reason, problem: read.problem };
      const format = formatOf(alert);
      if (!format.ok) return { ok: false, reason: 'InvalidSpec', problem: format.problem };
      const url = read.credentials.address ?? alert.spec.address;
      if (url === undefined) {
        return {
          ok: false,
          reason: 'InvalidSpec',
          problem: 'no address: set spec.address or the Secret key address',
        };
      }
      // The Secret's address is seen only here (spec.address was checked against the list with
      // the alert too); the address policy resolves either's host now, on every round.
      const refused =
        addressProblem(url, settings.allowedUrlPrefixes) ?? (await addressRefusal(url, guard));
      if (refused !== undefined)
        return { ok: false, reason: 'AddressNotAllowed', problem: refused };
      const timeoutMs = alertTimeoutMs(alert.spec);
      return {
        ok: true,
        request: (event, now): Prepared => ({
          ok: true,
          url,
          timeoutMs,
          ...formatDelivery(event, format.format, read.credentials, now),
        }),
      };
    },
    send: (request) => attemptDelivery(request, send, rt.now),
  };
  return ports;
}

/** A template that does not compile makes the alert unusable, with the problem as its reason. */
function withTemplateChecked(alert: PromotionAlert): AlertCheck {
  const format = formatOf(alert);
  return format.ok ? { ok: true, alert } : { ok: false, alert, problem: format.problem };
}

const compiled = new WeakMap<PromotionAlert, ReturnType<typeof compileFormat>>();

function formatOf(alert: PromotionAlert): ReturnType<typeof compileFormat> {
  let format = compiled.get(alert);
  if (format === undefined) {
    format = compileFormat(alert);
    compiled.set(alert, format);
  }
  return format;
}

function compileFormat(
  alert: PromotionAlert,
): { ok: true; format: DeliveryFormat } | { ok: false; problem: string } {
  const type = alert.spec.type ?? 'generic';
  if (type !== 'generic') return { ok: true, format: { type } };
  if (alert.spec.template === undefined) return { ok: true, format: { type } };
  const template = compileTemplate(alert.spec.template);
  return template.ok
    ? { ok: true, format: { type, template: template.template } }
    : { ok: false, problem: `spec.template: ${template.problem}` };
}
