/**
 * The protobuf form of the OpenAPI v2 document (gnostic's `openapi.v2.Document`, what
 * `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf` asks for): client-go's
 * `OpenAPISchema()` accepts nothing else. Encodes the parts openapi-v2.ts produces: info,
 * paths with their operations, query and body parameters and responses, and definitions.
 * Values gnostic holds as `Any` (default, enum, example, vendor extensions) carry their YAML
 * text; JSON is YAML, so they carry JSON. Field numbers are those of gnostic's OpenAPIv2.proto.
 */
import { isRecord } from './meta.js';

type Json = Record<string, unknown>;
type Parts = Buffer[];

function varint(value: bigint): Buffer {
  const bytes: number[] = [];
  let v = BigInt.asUintN(64, value);
  while (v >= 0x80n) {
    bytes.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  bytes.push(Number(v));
  return Buffer.from(bytes);
}

const key = (no: number, wire: number): Buffer => varint(BigInt(no * 8 + wire));

/** A length-delimited field (a message, string or bytes), present even when empty. */
function msg(no: number, parts: Parts): Buffer {
  const body = Buffer.concat(parts);
  return Buffer.concat([key(no, 2), varint(BigInt(body.length)), body]);
}

/** A string field; proto3 leaves out the empty string. */
function str(no: number, v: unknown): Parts {
  return typeof v === 'string' && v !== '' ? [msg(no, [Buffer.from(v, 'utf8')])] : [];
}

function strs(no: number, v: unknown): Parts {
  const list = Array.isArray(v) ? v : [];
  return list.filter((s) => typeof s === 'string').map((s) => msg(no, [Buffer.from(s, 'utf8')]));
}

function bool(no: number, v: unknown): Parts {
  return v === true ? [key(no, 0), Buffer.from([1])] : [];
}

function int64(no: number, v: unknown): Parts {
  return typeof v === 'number' && v !== 0 ? [key(no, 0), varint(BigInt(Math.trunc(v)))] : [];
}

function double(no: number, v: unknown): Parts {
  if (typeof v !== 'number' || v === 0) return [];
  const b = Buffer.alloc(8);
  b.writeDoubleLE(v);
  return [key(no, 1), b];
}

/** gnostic's Any: the value's YAML text in field 2. */
const any = (no: number, v: unknown): Buffer => msg(no, str(2, JSON.stringify(v)));

function vendorExtensions(no: number, o: Json): Parts {
  return Object.entries(o)
    .filter(([k]) => k.startsWith('x-'))
    .map(([k, v]) => msg(no, [...str(1, k), any(2, v)]));
}

/** NamedX entries (name 1, value 2) of a map, each as field `no`. */
function named(no: number, o: unknown, value: (v: Json) => Parts): Parts {
  if (!isRecord(o)) return [];
  return Object.entries(o).map(([k, v]) =>
    msg(no, [...str(1, k), msg(2, value(isRecord(v) ? v : {}))]),
  );
}

function additionalProperties(v: unknown): Parts {
  if (isRecord(v)) return [msg(21, [msg(1, schema(v))])];
  // A oneof member is sent even when it holds the default value.
  if (typeof v === 'boolean') return [msg(21, [key(2, 0), Buffer.from([v ? 1 : 0])])];
  return [];
}

/** openapi.v2.Schema. */
function schema(s: Json): Parts {
  const present = (no: number, v: unknown, f: () => Parts): Parts =>
    v === undefined ? [] : [msg(no, f())];
  return [
    ...[
      ['$ref', 1],
      ['format', 2],
      ['title', 3],
      ['description', 4],
    ].flatMap(([k, no]) => str(Number(no), s[String(k)])),
    ...(s.default === undefined ? [] : [any(5, s.default)]),
    ...double(6, s.multipleOf),
    ...double(7, s.maximum),
    ...bool(8, s.exclusiveMaximum),
    ...double(9, s.minimum),
    ...bool(10, s.exclusiveMinimum),
    ...int64(11, s.maxLength),
    ...int64(12, s.minLength),
    ...str(13, s.pattern),
    ...int64(14, s.maxItems),
    ...int64(15, s.minItems),
    ...bool(16, s.uniqueItems),
    ...int64(17, s.maxProperties),
    ...int64(18, s.minProperties),
    ...strs(19, s.required),
    ...(Array.isArray(s.enum) ? s.enum.map((v) => any(20, v)) : []),
    ...additionalProperties(s.additionalProperties),
    ...present(22, s.type, () => strs(1, [s.type])),
    ...present(23, isRecord(s.items) ? s.items : undefined, () => [
      msg(1, schema(s.items as Json)),
    ]),
    ...present(25, isRecord(s.properties) ? s.properties : undefined, () =>
      named(1, s.properties, schema),
    ),
    ...bool(27, s.readOnly),
    ...(s.example === undefined ? [] : [any(30, s.example)]),
    ...vendorExtensions(31, s),
  ];
}

/** openapi.v2.ParametersItem: a reference, a body parameter, or a query or path parameter. */
function parameter(p: Json): Buffer {
  if (typeof p.$ref === 'string') return msg(8, [msg(2, str(1, p.$ref))]);
  const common = [...str(3, p.description), ...str(4, p.name)];
  let inner: Buffer;
  if (p.in === 'body') {
    const body = [...str(1, p.description), ...str(2, p.name), ...str(3, p.in)];
    const withSchema = isRecord(p.schema) ? [msg(5, schema(p.schema))] : [];
    inner = msg(1, [...body, ...bool(4, p.required), ...withSchema]);
  } else if (p.in === 'path') {
    const sub = [...bool(1, p.required), ...str(2, p.in), ...common, ...str(5, p.type)];
    inner = msg(2, [msg(4, [...sub, ...bool(19, p.uniqueItems)])]);
  } else {
    const sub = [...bool(1, p.required), ...str(2, p.in), ...common, ...str(6, p.type)];
    inner = msg(2, [msg(3, [...sub, ...bool(20, p.uniqueItems)])]);
  }
  return msg(8, [msg(1, [inner])]);
}

/** openapi.v2.Responses: response code -> ResponseValue{response}. */
function responses(r: Json): Parts {
  return named(1, r, (resp) => [
    msg(1, [
      ...str(1, resp.description),
      ...(isRecord(resp.schema) ? [msg(2, [msg(1, schema(resp.schema))])] : []),
    ]),
  ]);
}

/** openapi.v2.Operation. */
function operation(op: Json): Parts {
  return [
    ...strs(1, op.tags),
    ...str(3, op.description),
    ...str(5, op.operationId),
    ...strs(6, op.produces),
    ...strs(7, op.consumes),
    ...(Array.isArray(op.parameters) ? op.parameters.filter(isRecord).map(parameter) : []),
    ...(isRecord(op.responses) ? [msg(9, responses(op.responses))] : []),
    ...strs(10, op.schemes),
    ...vendorExtensions(13, op),
  ];
}

const METHODS: readonly [string, number][] = [
  ['get', 2],
  ['put', 3],
  ['post', 4],
  ['delete', 5],
  ['options', 6],
  ['head', 7],
  ['patch', 8],
];

function pathItem(item: Json): Parts {
  return METHODS.flatMap(([method, no]) => {
    const op = item[method];
    return isRecord(op) ? [msg(no, operation(op))] : [];
  });
}

/** The document in gnostic's protobuf encoding. */
export function encodeOpenApiV2(doc: Json): Buffer {
  const info = isRecord(doc.info) ? doc.info : {};
  return Buffer.concat([
    ...str(1, doc.swagger),
    msg(2, [...str(1, info.title), ...str(2, info.version)]),
    msg(8, named(2, doc.paths, pathItem)),
    msg(9, named(1, doc.definitions, schema)),
    ...vendorExtensions(16, doc),
  ]);
}
