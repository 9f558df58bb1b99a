/**
 * `promotion-gateway status` shows records as stored, but a halt's reason or a principal that
 * holds a control character (ESC, a C1 CSI) or a bidirectional override or isolate, stored
 * before the doors refused them, reaches the terminal as U+FFFD, in the table, the detail and
 * JSON (where the value stays the same, written as escapes).
 */
import { describe, expect, it } from 'vitest';
import {
  environmentRows,
  renderDetail,
  renderJson,
  renderTable,
} from '../../../src/cli/status-view.js';
import type { PipelineStatus } from '../../../src/pipeline/pipeline-resource.js';
import { unsafeCharacterOf } from '../../../src/text/text.js';
import { samplePipeline } from '../../support/pipeline-fixtures.js';

const NOW = Date.parse('2026-11-25T12:00:00Z');
const REASON = 'incident 42 \u009b2J\u001b[31m \u202egnp.exe\u202c \u2066x\u2069';
const PRINCIPAL = 'oidc:https://sso#\u202eecila';

const status: PipelineStatus = {
  environments: {
    prod: {
      targets: [],
      approvals: [
        {
          principal: PRINCIPAL,
          kind: 'human',
          decision: 'approve',
          revision: '6.6.0',
          time: '2026-11-25T10:01:00Z',
          jti: 'j\u009b1',
        },
      ],
    },
  },
  halts: [
    {
      id: 'h1',
      environment: 'prod',
      principal: PRINCIPAL,
      kind: 'human',
      reason: REASON,
      time: '2026-11-25T09:00:00Z',
    },
  ],
};

describe('status output of stored text', () => {
  it('shows control and bidirectional characters as U+FFFD in the table and the detail', () => {
    const pipeline = samplePipeline(status);
    const table = renderTable(environmentRows([pipeline], NOW));
    const detail = renderDetail(pipeline, NOW);
    for (const text of [table, detail]) {
      expect(unsafeCharacterOf(text.replaceAll('\n', ' '))).toBeUndefined();
      expect(text).toContain('halted by oidc:https://sso#\ufffdecila');
      expect(text).toContain('incident 42 \ufffd2J');
    }
    expect(detail).toContain('approve 6.6.0 by oidc:https://sso#\ufffdecila (human)');
  });

  it('keeps the stored values in JSON, written as escapes', () => {
    const json = renderJson([samplePipeline(status)], NOW);
    expect(unsafeCharacterOf(json.replaceAll('\n', ' '))).toBeUndefined();
    expect(json).toContain('\\u202egnp.exe');
    const parsed = JSON.parse(json) as { pipelines: { status: PipelineStatus }[] };
    expect(parsed.pipelines[0]?.status.halts?.[0]?.reason).toBe(REASON);
  });
});
