/**
 * PromotionAlerts as they arrive from the API server, checked before the engine uses them:
 * against schemas/promotion-alert.schema.json (the CRD's own schema: a cluster whose CRD is
 * older, or edited by hand, must not crash or mislead the gateway), then against what a schema
 * cannot say (a timeout's bound, a template's type, the operator's namespace policy). A problem
 * is one line naming the field, never quoting a value that could be a secret.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { NotificationsConfig } from '../config/gateway-config.js';
import { compileSchema } from '../schemas.js';
import { clip } from '../text/text.js';
import { parseDuration } from '../time/duration.js';
import {
  DEFAULT_ALERT_TIMEOUT,
  DEFAULT_ALERT_TYPE,
  type AlertSpec,
  type PromotionAlert,
  type UncheckedAlert,
} from './alert-resource.js';
import { addressProblem } from './alert-address.js';
import { selectionProblem, type SelectionPolicy } from './alert-selection.js';

/** The longest delivery timeout an alert may ask for. */
export const MAX_ALERT_TIMEOUT_MS = 5 * 60_000;

const MAX_PROBLEM_LENGTH = 300;

let compiled: ValidateFunction<PromotionAlert> | undefined;

function validator(): ValidateFunction<PromotionAlert> {
  // strictRequired is off because `spec.anyOf: [{required: [address]}, {required: [secretRef]}]`
  // names properties declared beside the anyOf (correct, and what the CRD says).
  compiled ??= compileSchema<PromotionAlert>('promotion-alert.schema.json', {
    allErrors: false,
    strict: true,
    strictRequired: false,
  });
  return compiled;
}

/** The result of checking one alert: usable, or a one-line problem naming the field. */
export type AlertCheck =
  { ok: true; alert: PromotionAlert } | { ok: false; alert: UncheckedAlert; problem: string };

/** What the operator's configuration allows alerts: other namespaces, and receivers. */
export type AlertPolicy = SelectionPolicy & Pick<NotificationsConfig, 'allowedUrlPrefixes'>;

/**
 * Checks a stored alert's whole object against the schema, then its spec against what the
 * schema cannot say, under the operator's `policy`. The object is not copied or changed.
 */
export function checkAlert(alert: UncheckedAlert, policy: AlertPolicy): AlertCheck {
  if (typeof alert.spec !== 'object' || alert.spec === null)
    return { ok: false, alert, problem: 'spec is required' };
  const validate = validator();
  if (!validate(alert)) return { ok: false, alert, problem: describe(validate.errors ?? []) };
  const problem =
    specProblem(alert.spec) ??
    selectionProblem(alert, policy) ??
    specAddressProblem(alert.spec, policy.allowedUrlPrefixes);
  return problem === undefined ? { ok: true, alert } : { ok: false, alert, problem };
}

/** The delivery timeout of a checked alert, in ms. */
export function alertTimeoutMs(spec: Pick<AlertSpec, 'timeout'>): number {
  return parseDuration(spec.timeout ?? DEFAULT_ALERT_TIMEOUT) ?? MAX_ALERT_TIMEOUT_MS;
}

function specProblem(spec: AlertSpec): string | undefined {
  const type = spec.type ?? DEFAULT_ALERT_TYPE;
  if (spec.template !== undefined && type !== 'generic')
    return `spec.template: a template shapes generic bodies only; this alert's type is ${type}`;
  if (spec.timeout !== undefined) {
    const ms = parseDuration(spec.timeout);
    if (ms === undefined || ms <= 0 || ms > MAX_ALERT_TIMEOUT_MS)
      return 'spec.timeout: must be more than 0s and at most 5m';
  }
  return undefined;
}

/**
 * spec.address under the operator's allow-list (even where a Secret's address would replace it:
 * an address outside the list does not belong in the spec). The Secret's own address is checked
 * where a delivery is prepared (wiring/notify.ts).
 */
function specAddressProblem(spec: AlertSpec, allowed: readonly string[]): string | undefined {
  if (spec.address === undefined) return undefined;
  const problem = addressProblem(spec.address, allowed);
  return problem === undefined ? undefined : `spec.${problem}`;
}

/**
 * The first schema error as `field: what is wrong`. ajv's messages never quote the data, so a
 * URL or template that could hold a secret is never echoed.
 */
function describe(errors: readonly ErrorObject[]): string {
  const anyOf = errors.find((e) => e.keyword === 'anyOf' && e.instancePath === '/spec');
  if (anyOf !== undefined)
    return 'spec.address: is required unless spec.secretRef names a Secret (whose address key then gives it)';
  const [error] = errors;
  if (error === undefined) return 'does not match the PromotionAlert schema';
  const field = fieldOf(error);
  const text = error.keyword === 'required' ? 'is required' : (error.message ?? 'is invalid');
  return clip(`${field === '' ? '(object)' : field}: ${text}`, MAX_PROBLEM_LENGTH);
}

/** `/spec/pipelines/0/name` -> `spec.pipelines[0].name`; a missing property is named too. */
function fieldOf(error: ErrorObject): string {
  const segments = error.instancePath.split('/').slice(1);
  if (error.keyword === 'required') {
    segments.push(String((error.params as { missingProperty?: unknown }).missingProperty));
  }
  return segments
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce(
      (path, segment) =>
        /^[0-9]+$/.test(segment)
          ? `${path}[${segment}]`
          : path === ''
            ? segment
            : `${path}.${segment}`,
      '',
    );
}
