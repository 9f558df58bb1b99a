/**
 * Body templates of the generic format: logic-less mustache (https://mustache.github.io/),
 * compiled once when the PromotionAlert is loaded. What `{{name}}` escapes for follows the
 * body's content type: JSON string escaping for JSON (so `"{{revision}}"` stays one valid
 * string whatever the revision holds), HTML escaping for HTML and XML, percent-encoding for a
 * form, nothing for anything else; `{{{name}}}` never escapes. The view is the event only,
 * looked up through its ViewContext (template-view.ts). A template that does not parse, uses
 * partials, nests `{{#targets}}`, or, for JSON, renders invalid JSON for one of the sample
 * events is a load problem.
 */
import Mustache from 'mustache';
import type { NotificationEvent } from './notification-event.js';
import { templateSamples } from './template-samples.js';
import { templateView, ViewContext } from './template-view.js';

/** A template ready to render, made only by compileTemplate. */
export interface CompiledTemplate {
  /** The body's media type, sent as `content-type`. */
  readonly contentType: string;
  /**
   * The body for one event; the same event always renders the same bytes. Does not throw for
   * a template compileTemplate accepted (it renders every sample event once to make sure).
   */
  render(event: NotificationEvent): string;
}

/** A compiled template, or the problem to report (the alert's Ready=False message). */
export type CompileResult =
  { ok: true; template: CompiledTemplate } | { ok: false; problem: string };

/** The default content type of a templated body. */
export const DEFAULT_TEMPLATE_CONTENT_TYPE = 'application/json';
/** Longest template accepted, in characters. */
export const MAX_TEMPLATE_LENGTH = 16_384;

type Escape = (value: unknown) => string;
type Token = [string, string, number, number, Token[]?];

// RFC 9110 media type with optional parameters; no CR/LF can pass.
const MEDIA_TYPE =
  /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+(?:[ \t]*;[ \t]*[\w!#$&^.+-]+=(?:[\w!#$&^.+-]+|"[^"\\\r\n]*"))*$/;

/**
 * Compiles `text` for bodies of `contentType` (default application/json), or reports why it
 * cannot be used. Never throws.
 */
export function compileTemplate(
  text: string,
  options: { contentType?: string } = {},
): CompileResult {
  const contentType = options.contentType ?? DEFAULT_TEMPLATE_CONTENT_TYPE;
  if (!MEDIA_TYPE.test(contentType)) {
    return fail('template content type is not a media type such as application/json');
  }
  if (text.length > MAX_TEMPLATE_LENGTH) {
    return fail(`template is longer than ${MAX_TEMPLATE_LENGTH} characters`);
  }
  // A writer of its own: mustache's default one caches every template ever parsed.
  const writer = new Mustache.Writer();
  let tokens: Token[];
  try {
    tokens = writer.parse(text) as Token[];
  } catch (error) {
    return fail(`template does not parse: ${(error as Error).message}`);
  }
  const structure = structureProblem(tokens, false);
  if (structure !== undefined) return fail(structure);
  const escape = escapeFor(contentType);
  const template: CompiledTemplate = Object.freeze({
    contentType,
    render: (event: NotificationEvent) =>
      writer.render(text, new ViewContext(templateView(event)), undefined, { escape }),
  });
  const rendering = renderingProblem(template);
  return rendering === undefined ? { ok: true, template } : fail(rendering);
}

function fail(problem: string): CompileResult {
  return { ok: false, problem };
}

/**
 * Partials have nowhere to come from, so they are refused rather than rendering nothing; a
 * `targets` section inside another would repeat the body once per target per target.
 */
function structureProblem(tokens: readonly Token[], inTargets: boolean): string | undefined {
  for (const [kind, name, , , children] of tokens) {
    if (kind === '>') return `template uses the partial {{> ${name}}}; partials are not supported`;
    const isTargets = kind === '#' && name === 'targets';
    if (isTargets && inTargets) {
      return 'template nests a {{#targets}} section inside another; nested target lists are not supported';
    }
    const problem = children && structureProblem(children, inTargets || isTargets);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** Renders the samples; for a JSON type every body must parse. */
function renderingProblem(template: CompiledTemplate): string | undefined {
  const json = isJson(template.contentType);
  for (const sample of templateSamples()) {
    let body: string;
    try {
      body = template.render(sample);
    } catch (error) {
      return `template cannot be rendered: ${(error as Error).message}`;
    }
    if (!json) continue;
    try {
      JSON.parse(body);
    } catch (error) {
      return `template does not render valid JSON for a ${sample.type} event (${(error as Error).message}); write text values inside quotes, as "{{revision}}", with two braces`;
    }
  }
  return undefined;
}

/** The escape of `{{name}}` for a body of this media type (see the module comment). */
function escapeFor(contentType: string): Escape {
  const type = mediaType(contentType);
  if (isJson(type)) return primitive((text) => JSON.stringify(text).slice(1, -1));
  if (type === 'text/html' || type.endsWith('/xml') || type.endsWith('+xml')) {
    return primitive((text) => Mustache.escape(text));
  }
  if (type === 'application/x-www-form-urlencoded') return primitive(encodeURIComponent);
  return primitive((text) => text);
}

/** The type/subtype of a content type, lower case, without parameters. */
function mediaType(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

function isJson(contentType: string): boolean {
  const type = mediaType(contentType);
  return type === 'application/json' || type.endsWith('+json');
}

// Objects and lists written as a value render empty, as in template-view.ts.
function primitive(escape: (text: string) => string): Escape {
  return (value) =>
    typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
      ? escape(String(value))
      : '';
}
