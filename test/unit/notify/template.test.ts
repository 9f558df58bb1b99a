/**
 * Body templates: rendered from the event alone (no secret, global or prototype reachable),
 * escaped for the body's content type so that a value cannot break a JSON body, signed like any
 * generic body, and refused at load, with a readable problem, when they cannot be used.
 */
import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { formatDelivery } from '../../../src/notify/delivery-request.js';
import { packagePath } from '../../../src/paths.js';
import {
  compileTemplate,
  MAX_TEMPLATE_LENGTH,
  type CompiledTemplate,
} from '../../../src/notify/template.js';
import { promotionEvent, whsec } from './format-fixtures.js';

function compiled(text: string, contentType?: string): CompiledTemplate {
  const result = compileTemplate(text, contentType === undefined ? {} : { contentType });
  if (!result.ok) throw new Error(result.problem);
  return result.template;
}

function problemOf(text: string, contentType?: string): string {
  const result = compileTemplate(text, contentType === undefined ? {} : { contentType });
  if (result.ok) throw new Error('expected a problem');
  return result.problem;
}

const JSON_TEMPLATE = `{
  "text": "{{pipeline.namespace}}/{{pipeline.name}} {{revision}} reached {{environment}}",
  "attempt": {{#attempt}}{{attempt}}{{/attempt}}{{^attempt}}null{{/attempt}},
  "targets": [{{#targets}}"{{cluster}}/{{name}}",{{/targets}} null]
}`;

describe('rendering', () => {
  it('fills a JSON template from the event, JSON-escaping every {{value}}', () => {
    const revision = 'v1" , "injected": true, "x": "\\\n</script>';
    const body = compiled(JSON_TEMPLATE).render(promotionEvent({ revision }));
    const parsed = JSON.parse(body) as { text: string; attempt: number; targets: unknown[] };
    expect(parsed.text).toBe(`team-a/podinfo ${revision} reached staging`);
    expect(parsed).not.toHaveProperty('injected');
    expect(parsed.attempt).toBe(1);
    expect(parsed.targets).toEqual(['staging-eu/podinfo', 'staging-us/podinfo', null]);
  });

  it('is the generic body, with its content type, signed like any other', () => {
    const secret = whsec();
    const template = compiled('{"id": "{{id}}", "type": "{{type}}"}');
    const request = formatDelivery(
      promotionEvent(),
      { type: 'generic', template },
      { signingSecret: secret.key },
      Date.now(),
    );
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.body).toBe('{"id": "evt_abcdefghijklmnopqrstuv", "type": "PromotionSucceeded"}');
    expect(new Webhook(secret.text).verify(request.body, request.headers)).toEqual({
      id: 'evt_abcdefghijklmnopqrstuv',
      type: 'PromotionSucceeded',
    });
  });

  it('sees nothing but the event: secrets, globals and prototypes render empty', () => {
    const names = [
      'signingSecret',
      'signingKey',
      'credentials',
      'headers',
      'address',
      'secret',
      'process.env',
      'process',
      'globalThis',
      'require',
      'constructor',
      'constructor.name',
      '__proto__',
      'toString',
      'valueOf',
      'isPrototypeOf',
      'toLocaleString',
      '__defineGetter__',
      'this',
      'global',
      'Buffer',
      'credentials.signingSecret',
      'spec.secretRef.name',
      'pipeline.constructor',
      'targets.constructor',
      'targets.map',
      'revision.constructor',
      'id.constructor.constructor',
      'revision.constructor.name',
      'revision.constructor.constructor.name',
      'revision.constructor.prototype',
      'revision.length',
      'revision.0',
      'revision.toString',
      'attempt.constructor.name',
      'attempt.toFixed',
      'targets.0.ready.constructor.name',
      'targets.0.cluster.length',
      'targets.constructor.name',
      'targets.map.name',
      'pipeline.name.constructor.name',
      'hasOwnProperty',
      'targets.hasOwnProperty',
    ];
    const text = names.map((n) => `[{{${n}}}|{{{${n}}}}|{{#${n}}}S{{/${n}}}]`).join('');
    const template = compiled(text, 'text/plain');
    const request = formatDelivery(
      promotionEvent(),
      { type: 'generic', template },
      { signingSecret: Buffer.from('super-secret'), headers: { authorization: 'Bearer t0k' } },
      0,
    );
    expect(request.body).toBe(names.map(() => '[||]').join(''));
  });

  it('reaches no constructor through a string: the wrappers of values have no fields', () => {
    const event = promotionEvent();
    for (const text of [
      '{{revision.constructor.name}}',
      '{{revision.constructor.constructor.name}}',
      '{{{revision.constructor.constructor.name}}}',
      '{{#revision}}{{constructor.name}}{{length}}{{0}}{{/revision}}',
      '{{#attempt}}{{constructor.name}}{{/attempt}}',
      '{{#targets}}{{#cluster}}{{constructor.constructor.name}}{{/cluster}}{{/targets}}',
    ])
      expect(compiled(text, 'text/plain').render(event), text).toBe('');
    // The value itself, inside its own section, is still there.
    expect(compiled('{{#revision}}<{{.}}>{{/revision}}', 'text/plain').render(event)).toBe(
      `<${event.revision}>`,
    );
  });

  it('renders objects and lists written as values empty, and sections over them work', () => {
    const template = compiled(
      '{{pipeline}}|{{{targets}}}|{{#pipeline}}{{name}}{{/pipeline}}|{{targets.length}}|{{targets.1.cluster}}|{{#targets}}{{#ready}}R{{/ready}}{{^ready}}-{{/ready}}{{/targets}}|{{#targets}}{{environment}}{{/targets}}',
      'text/plain',
    );
    expect(template.render(promotionEvent())).toBe('||podinfo|2|staging-us|R-|stagingstaging');
  });

  it('escapes for HTML, for a form, and not at all for plain text', () => {
    const event = promotionEvent({ message: `<b>"a" & 'b'</b> c=d` });
    expect(compiled('<p>{{message}}</p>', 'text/html; charset=utf-8').render(event)).toBe(
      '<p>&lt;b&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;&#x2F;b&gt; c&#x3D;d</p>',
    );
    expect(compiled('text={{message}}', 'application/x-www-form-urlencoded').render(event)).toBe(
      `text=${encodeURIComponent(event.message)}`,
    );
    expect(compiled('{{message}}', 'text/plain').render(event)).toBe(event.message);
    expect(compiled('{{{message}}}', 'text/html').render(event)).toBe(event.message);
  });

  it('JSON-escapes for a +json type too, and renders the same bytes for the same event', () => {
    const template = compiled('{"m": "{{message}}"}', 'application/vnd.example+json');
    const event = promotionEvent({ message: 'line\nbreak "q"' });
    expect(template.render(event)).toBe('{"m": "line\\nbreak \\"q\\""}');
    expect(template.render(event)).toBe(
      template.render(promotionEvent({ message: 'line\nbreak "q"' })),
    );
  });
});

describe('load-time problems', () => {
  it('a template that does not parse', () => {
    expect(problemOf('{"a": "{{#targets}}x"}')).toMatch(
      /^template does not parse: Unclosed section "targets"/,
    );
    expect(problemOf('{{#a}}{{/b}}')).toMatch(/^template does not parse: Unclosed section "a"/);
    expect(problemOf('{{ name')).toMatch(/^template does not parse: Unclosed tag/);
  });

  it('a JSON template whose output is not JSON for some event', () => {
    expect(problemOf('{"revision": {{revision}}}')).toMatch(
      /^template does not render valid JSON for a WaitingForApproval event \(.*\); write text values inside quotes/,
    );
    // Raw values are not escaped, so a quote in a sample message breaks the JSON.
    expect(problemOf('{"m": "{{{message}}}"}')).toMatch(/does not render valid JSON/);
    // Only some events have a principal: the samples try every type.
    expect(problemOf('{"by": {{#principal}}"{{principal}}"{{/principal}}}')).toMatch(
      /for a EventsMissing event/,
    );
  });

  it('partials, nested target lists, oversize templates, bad content types', () => {
    // Any name may be looked up: hasOwnProperty is a name like another, and finds nothing.
    expect(
      compiled('{{#targets}}{{hasOwnProperty}}{{/targets}}', 'text/plain').render(promotionEvent()),
    ).toBe('');
    expect(problemOf('{{> header}}', 'text/plain')).toBe(
      'template uses the partial {{> header}}; partials are not supported',
    );
    expect(
      problemOf(
        '{{#targets}}{{#pipeline}}{{#targets}}x{{/targets}}{{/pipeline}}{{/targets}}',
        'text/plain',
      ),
    ).toMatch(/nests a \{\{#targets\}\} section inside another/);
    expect(problemOf('x'.repeat(MAX_TEMPLATE_LENGTH + 1), 'text/plain')).toMatch(
      /longer than 16384/,
    );
    expect(problemOf('{}', 'application/json\r\nX-Injected: 1')).toMatch(/not a media type/);
    expect(problemOf('{}', 'json')).toMatch(/not a media type/);
  });

  it('accepts the example of docs/notifications.md, which renders what it says', () => {
    const docs = readFileSync(packagePath('docs', 'notifications.md'), 'utf8');
    const block = /\n {2}template: \|\n((?: {4}.*\n)+)/.exec(docs)?.[1];
    const text = block!.replace(/^ {4}/gm, '');
    const event = promotionEvent();
    event.targets[0]!.ready = false;
    expect(JSON.parse(compiled(text).render(event))).toEqual({
      summary: 'team-a/podinfo: podinfo 6.5.4 was promoted to staging',
      environment: 'staging',
      revision: '6.5.4@sha256:0123abcd',
      attempt: 1,
      notReady: 'staging-eu/podinfo staging-us/podinfo ',
    });
  });

  it('accepts what renders valid JSON for every sample, including inverted and nested sections', () => {
    const text =
      '{"t": "{{type}}", "by": {{#principal}}"{{principal}}"{{/principal}}{{^principal}}null{{/principal}}, "ready": [{{#targets}}{{#ready}}"{{name}}",{{/ready}}{{/targets}}0]}';
    expect(compileTemplate(text).ok).toBe(true);
  });
});
