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

/** Builds the notifier of this gateway; it does nothing until start() and while not leading. */
export function notifier(
  rt: Runtime,
  catalog: Pick<PipelineCatalog, 'heads' | 'get'>,
  isLeader: () => boolean,
): Notifier {
  const { config } = rt;
  const settings = config.notifications;
  const metrics = notifyMetrics(rt.metrics.registry, rt.now);
  return new Notifier({
    ports: alertPorts(rt),
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
function alertPorts(rt: Runtime): NotifierPorts {
  const { config, calls, management } = rt;
  const settings = config.notifications;
  const source = new AlertSource(new KubeObjectReader(management, calls), {
    namespaces: config.pipelineNamespaces,
    policy: settings,
  });
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
