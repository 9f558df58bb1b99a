/**
 * Just enough of the Kubernetes protobuf encoding to accept the bodies typed kubectl commands
 * send (`kubectl create namespace|configmap|secret`): the `k8s\0` envelope and the Namespace,
 * ConfigMap and Secret messages with the common ObjectMeta fields. Responses are always JSON,
 * which those clients accept.
 */
import type { SimObject } from './resources.js';

interface Field {
  no: number;
  wire: number;
  value: Buffer | number;
}

function varint(buf: Buffer, pos: number): [number, number] {
  let result = 0;
  let shift = 0;
  for (;;) {
    const b = buf[pos++];
    if (b === undefined) throw new Error('truncated varint');
    result += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) return [result, pos];
    shift += 7;
  }
}

function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const [tag, afterTag] = varint(buf, pos);
    const no = Math.floor(tag / 8);
    const wire = tag & 7;
    if (wire === 0) {
      const [v, next] = varint(buf, afterTag);
      out.push({ no, wire, value: v });
      pos = next;
    } else if (wire === 2) {
      const [len, start] = varint(buf, afterTag);
      out.push({ no, wire, value: buf.subarray(start, start + len) });
      pos = start + len;
    } else if (wire === 1) {
      pos = afterTag + 8;
    } else if (wire === 5) {
      pos = afterTag + 4;
    } else {
      throw new Error(`unsupported wire type ${wire}`);
    }
  }
  return out;
}

const text = (f: Field): string =>
  Buffer.isBuffer(f.value) ? f.value.toString('utf8') : String(f.value);
const bytes = (f: Field): Buffer => (Buffer.isBuffer(f.value) ? f.value : Buffer.alloc(0));

function mapEntry(f: Field, asBase64: boolean): [string, string] {
  let key = '';
  let value = '';
  for (const e of fields(bytes(f))) {
    if (e.no === 1) key = text(e);
    if (e.no === 2) value = asBase64 ? bytes(e).toString('base64') : text(e);
  }
  return [key, value];
}

function objectMeta(buf: Buffer): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  const labels: Record<string, string> = {};
  const annotations: Record<string, string> = {};
  for (const f of fields(buf)) {
    if (f.no === 1) meta.name = text(f);
    else if (f.no === 2) meta.generateName = text(f);
    else if (f.no === 3) meta.namespace = text(f);
    else if (f.no === 11) labels[mapEntry(f, false)[0]] = mapEntry(f, false)[1];
    else if (f.no === 12) annotations[mapEntry(f, false)[0]] = mapEntry(f, false)[1];
  }
  // gogo-protobuf writes empty optional strings; the JSON form omits them.
  for (const key of Object.keys(meta)) if (meta[key] === '') Reflect.deleteProperty(meta, key);
  if (Object.keys(labels).length > 0) meta.labels = labels;
  if (Object.keys(annotations).length > 0) meta.annotations = annotations;
  return meta;
}

function mapField(all: Field[], no: number, asBase64: boolean): Record<string, string> | undefined {
  const entries = all.filter((f) => f.no === no).map((f) => mapEntry(f, asBase64));
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/** Decodes a `k8s\0`-enveloped Namespace, ConfigMap or Secret; throws for anything else. */
export function decodeProtobuf(body: Buffer): SimObject {
  if (body.subarray(0, 4).toString('latin1') !== 'k8s\u0000')
    throw new Error('missing k8s protobuf envelope');
  let apiVersion = '';
  let kind = '';
  let raw: Buffer = Buffer.alloc(0);
  for (const f of fields(body.subarray(4))) {
    if (f.no === 1) {
      for (const t of fields(bytes(f))) {
        if (t.no === 1) apiVersion = text(t);
        if (t.no === 2) kind = text(t);
      }
    } else if (f.no === 2) {
      raw = bytes(f);
    }
  }
  const top = fields(raw);
  const metaField = top.find((f) => f.no === 1);
  const obj: SimObject = {
    apiVersion,
    kind,
    metadata: metaField === undefined ? {} : objectMeta(bytes(metaField)),
  };
  if (kind === 'Namespace') return obj;
  if (kind === 'ConfigMap') {
    const data = mapField(top, 2, false);
    const binaryData = mapField(top, 3, true);
    return {
      ...obj,
      ...(data !== undefined ? { data } : {}),
      ...(binaryData !== undefined ? { binaryData } : {}),
    };
  }
  if (kind === 'Secret') {
    const data = mapField(top, 2, true);
    const type = top.find((f) => f.no === 3);
    const stringData = mapField(top, 4, false);
    return {
      ...obj,
      ...(data !== undefined ? { data } : {}),
      ...(stringData !== undefined ? { stringData } : {}),
      ...(type !== undefined ? { type: text(type) } : {}),
    };
  }
  throw new Error(`protobuf bodies of kind ${kind} are not supported`);
}
