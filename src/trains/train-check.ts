/**
 * PromotionTrains as they arrive from the API server, checked before the gateway uses them:
 * against schemas/promotion-train.schema.json (the CRD's own schema), then against what a schema
 * cannot say: every dependsOn names a member, and the order among members has no cycle. A problem
 * is one line naming the field.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { compileSchema } from '../schemas.js';
import { clip } from '../text/text.js';
import type { PromotionTrain, TrainMember, UncheckedTrain } from './train-resource.js';

const MAX_PROBLEM_LENGTH = 300;

let compiled: ValidateFunction<PromotionTrain> | undefined;

function validator(): ValidateFunction<PromotionTrain> {
  // strictRequired is off: `spec.oneOf` names properties declared beside it (as the CRD says).
  compiled ??= compileSchema<PromotionTrain>('promotion-train.schema.json', {
    allErrors: false,
    strict: true,
    strictRequired: false,
  });
  return compiled;
}

/** Why a train's spec cannot be used: the Ready=False reason its status gives. */
export type SpecReason = 'InvalidSpec' | 'DependsOnUnknown' | 'DependsOnCycle';

/** The result of checking one train: usable, or a one-line problem naming the field. */
export type TrainCheck =
  | { ok: true; train: PromotionTrain }
  | { ok: false; train: UncheckedTrain; reason: SpecReason; problem: string };

/** Checks a stored train's whole object against the schema, then its members' order. */
export function checkTrain(train: UncheckedTrain): TrainCheck {
  if (typeof train.spec !== 'object' || train.spec === null)
    return { ok: false, train, reason: 'InvalidSpec', problem: 'spec is required' };
  const validate = validator();
  if (!validate(train))
    return { ok: false, train, reason: 'InvalidSpec', problem: describe(validate.errors ?? []) };
  const order = orderCheck(train.spec.members ?? []);
  return order === undefined ? { ok: true, train } : { ok: false, train, ...order };
}

/** A dependsOn naming no member, naming itself, or closing a cycle; undefined when none. */
export function orderProblem(members: readonly TrainMember[]): string | undefined {
  return orderCheck(members)?.problem;
}

function orderCheck(
  members: readonly TrainMember[],
): { reason: SpecReason; problem: string } | undefined {
  const names = new Set(members.map((m) => m.name));
  const unknown = (problem: string) => ({ reason: 'DependsOnUnknown' as const, problem });
  for (const [i, member] of members.entries()) {
    for (const dependency of member.dependsOn ?? []) {
      if (dependency === member.name)
        return unknown(`spec.members[${i}].dependsOn: a member cannot depend on itself`);
      if (!names.has(dependency))
        return unknown(`spec.members[${i}].dependsOn: ${dependency} is not a member of the train`);
    }
  }
  const cycle = cycleThrough(members);
  return cycle === undefined
    ? undefined
    : {
        reason: 'DependsOnCycle',
        problem: `spec.members: dependsOn has a cycle (${cycle.join(' -> ')})`,
      };
}

/** One cycle of the dependsOn graph, as the names along it, or undefined when it has none. */
function cycleThrough(members: readonly TrainMember[]): string[] | undefined {
  const after = new Map(members.map((m) => [m.name, m.dependsOn ?? []]));
  const done = new Set<string>();
  const visit = (name: string, path: string[]): string[] | undefined => {
    if (path.includes(name)) return [...path.slice(path.indexOf(name)), name];
    if (done.has(name)) return undefined;
    for (const next of after.get(name) ?? []) {
      const found = visit(next, [...path, name]);
      if (found !== undefined) return found;
    }
    done.add(name);
    return undefined;
  };
  for (const member of members) {
    const found = visit(member.name, []);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The first schema error as `field: what is wrong` (ajv's messages never quote the data). */
function describe(errors: readonly ErrorObject[]): string {
  const oneOf = errors.find((e) => e.keyword === 'oneOf' && e.instancePath === '/spec');
  if (oneOf !== undefined) return 'spec: give either members or selector, not both';
  const [error] = errors;
  if (error === undefined) return 'does not match the PromotionTrain schema';
  const segments = error.instancePath.split('/').slice(1);
  if (error.keyword === 'required')
    segments.push(String((error.params as { missingProperty?: unknown }).missingProperty));
  const field = segments.reduce(
    (path, s) => (/^[0-9]+$/.test(s) ? `${path}[${s}]` : path === '' ? s : `${path}.${s}`),
    '',
  );
  const text = error.keyword === 'required' ? 'is required' : (error.message ?? 'is invalid');
  return clip(`${field === '' ? '(object)' : field}: ${text}`, MAX_PROBLEM_LENGTH);
}
