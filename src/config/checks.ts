/**
 * Rules the JSON Schema cannot express: uniqueness across entries, relations between two
 * fields, and properties of resolved secrets. Each returns problem lines naming the field.
 */
import type { CheckedInput } from './input.js';
import type { SecretBytes } from './gateway-config.js';
import { problem } from './schema.js';

/** Every cross-field rule on a schema-valid input; an empty list means all hold. */
export function checkInput(input: CheckedInput): string[] {
  return [
    ...uniqueClusterNames(input),
    ...managementClusterRule(input),
    ...uniqueGitopsClusters(input),
    ...notAbove(
      input.hints.retryBaseMs,
      input.hints.retryMaxMs,
      '/hints',
      'retryBaseMs',
      'retryMaxMs',
    ),
    ...notAbove(
      input.promotion.retry.backoffBaseMs,
      input.promotion.retry.backoffMaxMs,
      '/promotion/retry',
      'backoffBaseMs',
      'backoffMaxMs',
    ),
    ...leaderTimings(input.leaderElection),
    ...separateMetricsPort(input.server),
    ...uiRules(input),
  ];
}

// The view has a port of its own, and without anonymous read it authenticates as the API does.
function uiRules(input: CheckedInput): string[] {
  const { ui, server } = input;
  if (ui === undefined) return [];
  // metricsPort is absent unless set (the type says otherwise: the schema gives it no default).
  const taken: unknown[] = [server.port, server.metricsPort].filter((p) => p !== 0);
  return [
    ...(ui.port !== 0 && taken.includes(ui.port)
      ? [problem('/ui/port', 'must differ from /server/port and /server/metricsPort')]
      : []),
    ...(ui.anonymous || input.jwt !== undefined
      ? []
      : [
          problem(
            '/ui',
            "needs /jwt (the viewers' tokens are verified with it), or anonymous: true",
          ),
        ]),
  ];
}

// One port cannot serve two listeners; 0 asks for any free port, so two zeros are fine.
function separateMetricsPort(server: CheckedInput['server']): string[] {
  const { port, metricsPort } = server;
  if (metricsPort !== port || port === 0) return [];
  return [problem('/server/metricsPort', 'must differ from /server/port')];
}

// A leader must give up before anyone may take the Lease over (renewDeadline < leaseDuration),
// and must get more than one renewal attempt before giving up (retryPeriod < renewDeadline).
function leaderTimings(timings: CheckedInput['leaderElection']): string[] {
  const at = '/leaderElection';
  const { leaseDurationMs, renewDeadlineMs, retryPeriodMs } = timings;
  return [
    ...(renewDeadlineMs < leaseDurationMs
      ? []
      : [problem(`${at}/renewDeadlineMs`, `must be < leaseDurationMs (${leaseDurationMs})`)]),
    ...(retryPeriodMs < renewDeadlineMs
      ? []
      : [problem(`${at}/retryPeriodMs`, `must be < renewDeadlineMs (${renewDeadlineMs})`)]),
  ];
}

function uniqueClusterNames(input: CheckedInput): string[] {
  const problems: string[] = [];
  const seen = new Map<string, number>();
  input.clusters.forEach((cluster, index) => {
    const first = seen.get(cluster.name);
    if (first === undefined) seen.set(cluster.name, index);
    else
      problems.push(
        problem(
          `/clusters/${index}/name`,
          `duplicates /clusters/${first}/name ("${cluster.name}")`,
        ),
      );
  });
  return problems;
}

// A cluster without a GitopsCluster is reached with the management credentials, so it can
// only be the management cluster; any other name would be a second alias for it.
function managementClusterRule(input: CheckedInput): string[] {
  const problems: string[] = [];
  input.clusters.forEach((cluster, index) => {
    if (cluster.gitopsCluster === undefined && cluster.name !== input.management.name) {
      problems.push(
        problem(
          `/clusters/${index}/gitopsCluster`,
          `is required unless the cluster is the management cluster ("${input.management.name}")`,
        ),
      );
    }
  });
  return problems;
}

function uniqueGitopsClusters(input: CheckedInput): string[] {
  const problems: string[] = [];
  const seen = new Map<string, number>();
  input.clusters.forEach((cluster, index) => {
    if (cluster.gitopsCluster === undefined) return;
    const key = `${cluster.gitopsCluster.namespace}/${cluster.gitopsCluster.name}`;
    const first = seen.get(key);
    if (first === undefined) seen.set(key, index);
    else
      problems.push(
        problem(`/clusters/${index}/gitopsCluster`, `duplicates /clusters/${first}/gitopsCluster`),
      );
  });
  return problems;
}

function notAbove(
  base: number,
  max: number,
  at: string,
  baseKey: string,
  maxKey: string,
): string[] {
  return base <= max ? [] : [problem(`${at}/${maxKey}`, `must be >= ${baseKey} (${base})`)];
}

/**
 * A key shared by two clusters would let one cluster's Flux speak for the other, so every
 * HMAC key must belong to one cluster only. Problems name both fields, never the key.
 */
export function checkHmacKeysDistinct(
  clusters: readonly { hmacKeys: readonly (SecretBytes | undefined)[] }[],
): string[] {
  const problems: string[] = [];
  const owners: { key: SecretBytes; cluster: number; pointer: string }[] = [];
  clusters.forEach((cluster, index) => {
    cluster.hmacKeys.forEach((key, keyIndex) => {
      if (key === undefined) return;
      const pointer = `/clusters/${index}/hmacKeys/${keyIndex}`;
      const owner = owners.find((o) => o.cluster !== index && o.key.equals(key));
      if (owner !== undefined) {
        problems.push(
          problem(pointer, `is the same key as ${owner.pointer}; use one key per cluster`),
        );
      }
      owners.push({ key, cluster: index, pointer });
    });
  });
  return problems;
}

const PEM_PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;
const PRIVATE_KEY_TEXT = 'is a private key; give the public key';
const PEM_PUBLIC_KEY = /^\s*-----BEGIN PUBLIC KEY-----[\s\S]+-----END PUBLIC KEY-----\s*$/;

/**
 * A static JWT key must be a PEM SPKI public key or a JWK object; anything else (notably a
 * private key pasted by mistake) is refused without repeating its text.
 */
export function checkPublicKey(text: string, pointer: string): string[] {
  if (PEM_PUBLIC_KEY.test(text)) return [];
  if (PEM_PRIVATE_KEY.test(text)) return [problem(pointer, PRIVATE_KEY_TEXT)];
  const jwk = parseJwk(text);
  if (jwk === undefined)
    return [problem(pointer, 'must be a PEM public key (SPKI) or a JWK in JSON')];
  // An asymmetric JWK with `d` is a private key: it must not sit in the gateway's config.
  if (jwk.kty !== 'oct' && 'd' in jwk) return [problem(pointer, PRIVATE_KEY_TEXT)];
  return [];
}

function parseJwk(text: string): { kty: string; d?: unknown } | undefined {
  try {
    const jwk: unknown = JSON.parse(text);
    if (typeof jwk !== 'object' || jwk === null) return undefined;
    const kty = (jwk as { kty?: unknown }).kty;
    return typeof kty === 'string' ? { ...jwk, kty } : undefined;
  } catch {
    return undefined;
  }
}
