/**
 * The few schema builders TypeBox leaves to its users, written so that the JSON they emit is what
 * a Kubernetes structural schema accepts: every node has a `type`, maps use
 * `additionalProperties` (never `patternProperties`), enums and constants are typed strings.
 */
import {
  Type,
  type Static,
  type TObject,
  type TSchema,
  type TSchemaOptions,
  type TUnsafe,
} from 'typebox';

/** A string that is one of `values` (`{type: string, enum}`), typed as their union. */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options?: TSchemaOptions,
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: values });
}

/** The string `value` and nothing else (`{type: string, const}`), typed as that literal. */
export function StringConst<const T extends string>(
  value: T,
  options?: TSchemaOptions,
): TUnsafe<T> {
  return Type.Unsafe<T>({ ...options, type: 'string', const: value });
}

/**
 * Exactly one of `schemas` (`oneOf`, which TypeBox's Union does not emit: it writes `anyOf`),
 * typed as the union of their types.
 */
export function OneOf<const T extends readonly TSchema[]>(
  schemas: T,
  options?: TSchemaOptions,
): TUnsafe<Static<T[number]>> {
  return Type.Unsafe<Static<T[number]>>({ ...options, oneOf: schemas });
}

/** An object whose fields the schema leaves open (`{type: object}`, e.g. a resource's metadata). */
export function OpenObject(options?: TSchemaOptions): TUnsafe<Record<string, unknown>> {
  return Type.Unsafe<Record<string, unknown>>({ ...options, type: 'object' });
}

/** An object of free keys whose values are `value` (`additionalProperties`), typed as a Record. */
export function MapOf<T extends TSchema>(
  value: T,
  options?: TSchemaOptions,
): TUnsafe<Record<string, Static<T>>> {
  return Type.Unsafe<Record<string, Static<T>>>({
    ...options,
    type: 'object',
    additionalProperties: value,
  });
}

/**
 * A `$ref` to `#/definitions/<name>` of the same document (or of `document`, another file of
 * schemas/), typed as `T`, the declaration listed under that name: a shared definition stays one
 * node of the JSON, which error paths and route `$ref`s name.
 */
export function Ref<T extends TSchema>(
  name: string,
  options?: TSchemaOptions & { document?: string },
): TUnsafe<Static<T>> {
  const { document = '', ...rest } = options ?? {};
  return Type.Unsafe<Static<T>>({ ...rest, $ref: `${document}#/definitions/${name}` });
}

/** One of T's keys, present and defined, and no other. */
export type ExactlyOne<T> = { [K in keyof T]-?: { [P in K]-?: NonNullable<T[P]> } }[keyof T];

/**
 * `schema` (an object of optional fields) holding exactly one of its fields
 * (`minProperties`/`maxProperties` 1, closed), typed as the union of the one-field objects.
 */
export function ExactlyOneOf<T extends TObject>(schema: T): TUnsafe<ExactlyOne<Static<T>>> {
  return Type.Unsafe<ExactlyOne<Static<T>>>({
    ...schema,
    additionalProperties: false,
    minProperties: 1,
    maxProperties: 1,
  });
}
