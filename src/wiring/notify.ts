/**
 * Wiring of the notifications stage: PromotionAlerts listed and checked (src/notify/alert-
 * source.ts), their Secrets read (alert-credentials.ts), events formatted (delivery-request.ts)
 * and sent (delivery.ts), their status written by the one alert writer, all driven by the
 * Notifier on the Lease holder. Nothing here decides anything.
 */
import { AlertStatusWriter } from '../kube/alert-status-writer.js';
import { KubeAlertWriter } from '../kube/alert-writer.js';
import { KubeObjectReader } from '../kube/reader.js';
import { kubeSecretReader } from '../kube/secrets.js';
import type { PipelineCatalog } from '../catalog/catalog.js';
import { pipelineIdOf } from '../pipeline/id.js';
import { addressProblem } from '../notify/alert-address.js';
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
import { withOwedEvents } from '../notify/outbox-record.js';
import type { NotificationType } from '../notify/notification-event.js';
import type { Pipeline, PipelineStatus } from '../pipeline/pipeline-resource.js';

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
  const settings = rt.config.notifications;
  if (!settings.enabled) return undefined;
  const policy = {
    horizonMs: settings.horizonMs,
    wants: (pipeline: Pipeline, type: NotificationType) => alerts.directory.wants(pipeline, type),
  };
  return (stored, next) => withOwedEvents(stored, next, rt.now(), policy);
}

/** Builds the notifier of this gateway; it does nothing until start() and while not leading. */
export function notifier(
  rt: Runtime,
  catalog: Pick<PipelineCatalog, 'heads' | 'get'>,
  isLeader: () => boolean,
  alerts: AlertKnowledge,
): Notifier {
  const { config } = rt;
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
  });
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
  const send = rt.fetch ?? ((url: string, init: RequestInit) => fetch(url, init));
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
      await writer.apply(alert, (stored: UncheckedAlert) => {
        const status = change(stored);
        return status === undefined ? { keep: undefined } : { write: status, verdict: undefined };
      });
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
      // The Secret's address is seen only here; spec.address was checked with the alert too.
      const refused = addressProblem(url, settings.allowedUrlPrefixes);
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
