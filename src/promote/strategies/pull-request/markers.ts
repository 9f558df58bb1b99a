/**
 * weave's promotion markers: a YAML scalar followed on its line by the comment
 * `# {"$promotion": "<namespace>:<pipeline>:<environment>"}` is the value a promotion to that
 * environment sets. Edits go through the yaml package's concrete syntax tree, so every byte
 * outside the marked scalars (comments, quoting, key order, other documents) stays as it was.
 */
import { CST, Parser, parse } from 'yaml';

/** The marker's key, as weave's pipeline-controller names it. */
const MARKER_KEY = '$promotion';

/** What setting the marked values of one file did. */
export interface MarkerEdit {
  /** The file's new text (the input itself when nothing changed). */
  text: string;
  /** Scalars marked for the environment, whether or not they changed. */
  markers: number;
  /** True when some marked scalar held another value. */
  changed: boolean;
}

/** The marker text that names `environment` of `namespace/pipeline`. */
export function markerFor(namespace: string, pipeline: string, environment: string): string {
  return `${namespace}:${pipeline}:${environment}`;
}

/** The environment a comment token marks, or undefined when it is not a promotion marker. */
function markerOf(comment: string): string | undefined {
  const body = comment.replace(/^#/, '').trim();
  if (!body.startsWith('{') || !body.includes(MARKER_KEY)) return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const value = (parsed as Record<string, unknown>)[MARKER_KEY];
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** True when a scalar token's trailing comment on its own line is `marker`. */
function isMarked(token: CST.FlowScalar, marker: string): boolean {
  for (const part of token.end ?? []) {
    if (part.type === 'newline') return false;
    if (part.type === 'comment') return markerOf(part.source) === marker;
  }
  return false;
}

function isFlowScalar(token: CST.Token): token is CST.FlowScalar {
  return CST.isScalar(token) && token.type !== 'block-scalar';
}

/** The scalar's current value, as YAML reads it. */
function valueOf(token: CST.FlowScalar): unknown {
  return CST.resolveAsScalar(token).value;
}

/**
 * Sets every scalar marked for `marker` to `value`. A plain scalar stays plain when YAML would
 * read `value` back as that same string, else it is double-quoted (a revision like `1.10` must
 * not become the number 1.1); quoted scalars keep their quotes.
 */
export function setMarkedValues(text: string, marker: string, value: string): MarkerEdit {
  const tokens = [...new Parser().parse(text)];
  // Counted inside the visitor's callback, so kept in an object the type checker follows.
  const found = { markers: 0, changed: false };
  for (const token of tokens) {
    if (token.type !== 'document') continue;
    CST.visit(token, (item) => {
      const scalar = item.value;
      if (scalar === undefined || !isFlowScalar(scalar) || !isMarked(scalar, marker)) return;
      found.markers += 1;
      if (valueOf(scalar) === value) return;
      found.changed = true;
      const plainSafe = scalar.type === 'scalar' && parse(value) === value;
      const type = scalar.type === 'scalar' && !plainSafe ? 'QUOTE_DOUBLE' : undefined;
      CST.setScalarValue(scalar, value, type === undefined ? {} : { type });
    });
  }
  if (!found.changed) return { text, ...found };
  return { text: tokens.map((t) => CST.stringify(t)).join(''), ...found };
}
