/**
 * Small pure parts of the view: the SSE framing (a line break in data becomes a data line of
 * its own, never a new field; ids and event names cannot smuggle a field), the environment
 * columns (one per name, in the order Pipelines agree on; positions when too many), and access
 * (a viewer sees exactly the Pipelines its token's `pipelines` claim names).
 */
import { describe, expect, it } from 'vitest';
import { pipelineId } from '../../../src/pipeline/id.js';
import { viewerFor, viewerOf } from '../../../src/ui/ui-access.js';
import { columnPlan, MAX_NAMED_COLUMNS, placeInColumns } from '../../../src/ui/columns.js';
import { sseComment, sseFrame, sseRetry } from '../../../src/ui/sse.js';

describe('SSE framing', () => {
  it('frames event, id and data, one data line per line of data', () => {
    expect(sseFrame({ event: 'rows', id: 'ab.1', data: 'one\ntwo\r\nthree' })).toBe(
      'event: rows\nid: ab.1\ndata: one\ndata: two\ndata: three\n\n',
    );
    expect(sseFrame({ data: '' })).toBe('data: \n\n');
  });

  it('keeps line breaks and NUL out of event names and ids, so no field can be injected', () => {
    expect(sseFrame({ event: 'rows\ndata: x', id: '1\n\nevent: y\u0000', data: 'z' })).toBe(
      'event: rowsdata: x\nid: 1event: y\ndata: z\n\n',
    );
  });

  it('writes retry and comments', () => {
    expect(sseRetry(2000.7)).toBe('retry: 2000\n\n');
    expect(sseComment('hi\nthere')).toBe(': hithere\n\n');
  });
});

describe('columns', () => {
  it('merges the environments of different Pipelines in the order they agree on', () => {
    const plan = columnPlan([
      ['dev', 'staging', 'prod'],
      ['dev', 'qa', 'staging', 'prod'],
      ['staging', 'prod'],
      ['dev', 'prod'],
    ]);
    expect(plan.headers).toEqual(['dev', 'qa', 'staging', 'prod']);
    expect(plan.positional).toBe(false);
    expect(placeInColumns(plan, ['staging', 'prod'])).toEqual([undefined, undefined, 0, 1]);
  });

  it('breaks a disagreement by average position, and goes positional past the limit', () => {
    expect(
      columnPlan([
        ['a', 'b'],
        ['b', 'a'],
        ['a', 'c'],
      ]).headers,
    ).toEqual(['a', 'b', 'c']);
    const many = Array.from({ length: MAX_NAMED_COLUMNS + 1 }, (_, i) => [`e${String(i)}`, 'prod']);
    const plan = columnPlan(many);
    expect(plan.positional).toBe(true);
    expect(plan.headers).toEqual(['stage 1', 'stage 2']);
    expect(placeInColumns(plan, ['only'])).toEqual([0, undefined]);
  });

  it('is the same plan, with the same key, for the same environments', () => {
    expect(columnPlan([['dev', 'prod']]).key).toBe(columnPlan([['dev', 'prod'], ['dev']]).key);
    expect(columnPlan([['dev', 'prod']]).key).not.toBe(columnPlan([['dev', 'qa', 'prod']]).key);
  });
});

describe('access', () => {
  const identity = (pipelines: string[]) => ({
    kind: 'jwt' as const,
    subject: 'alice',
    scopes: { clusters: [], pipelines },
  });
  const id = (ref: string) => {
    const [namespace = '', name = ''] = ref.split('/');
    return pipelineId({ namespace, name });
  };

  it('sees exactly the Pipelines the claim names: namespace/name, namespace/*, *', () => {
    const viewer = viewerFor(identity(['team-a/app', 'team-b/*']));
    expect(viewer.sees(id('team-a/app'))).toBe(true);
    expect(viewer.sees(id('team-a/other'))).toBe(false);
    expect(viewer.sees(id('team-b/anything'))).toBe(true);
    expect(viewer.sees(id('team-bb/x'))).toBe(false);
    expect(viewerFor(identity(['*'])).sees(id('x/y'))).toBe(true);
    expect(viewerFor(identity([])).seesNothing).toBe(true);
    expect(viewerFor(identity(['b/*', 'a/x'])).scopeKey).toBe(
      viewerFor(identity(['a/x', 'b/*'])).scopeKey,
    );
  });

  it('refuses a request without a token unless anonymous, and checks a token even then', async () => {
    const auth = { clusters: [], jwt: undefined, jwtKeys: undefined };
    expect(await viewerOf({}, { auth, anonymous: false })).toMatchObject({
      ok: false,
      reason: 'MissingToken',
    });
    const anonymous = await viewerOf({}, { auth, anonymous: true });
    expect(anonymous.ok && anonymous.viewer.sees(id('any/thing'))).toBe(true);
    const withToken = await viewerOf(
      { authorization: 'Bearer abc.def.ghi' },
      { auth, anonymous: true },
    );
    expect(withToken.ok).toBe(false);
  });
});
