import { describe, expect, it } from 'vitest';
import { StatusWritesHeld } from '../../../src/kube/status-writer.js';
import { createLogger } from '../../../src/log.js';
import { queueFailures } from '../../../src/wiring/queue-failures.js';

/** The log lines at info and above that `events` make, as `level msg`. */
function logged(events: Parameters<ReturnType<typeof queueFailures<string>>>[0][]): string[] {
  const lines: { level: number; msg: string }[] = [];
  const logger = createLogger('info', {
    write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]),
  });
  const observe = queueFailures<string>(logger, 'pipeline check failed', 'pipeline');
  for (const event of events) observe(event);
  return lines.map((l) => `${String(l.level)} ${l.msg}`);
}

describe('queueFailures', () => {
  it('warns of a retried failure and errs on a dropped one', () => {
    const error = new Error('connection refused');
    expect(
      logged([
        { type: 'retry', key: 'apps/a', retry: 1, delayMs: 1000, error },
        { type: 'dropped', key: 'apps/a', attempts: 5, error },
        { type: 'retry', key: 'apps/b', retry: 1, delayMs: 1000 },
      ]),
    ).toEqual(['40 pipeline check failed', '50 pipeline check failed']);
  });

  it('keeps the retries of checks refused while status writes are held out of the info log', () => {
    const held = new StatusWritesHeld(['status.environments.*.promotion']);
    const retries = Array.from({ length: 100 }, (_, i) => ({
      type: 'retry' as const,
      key: `apps/p${String(i)}`,
      retry: 1,
      delayMs: 1000,
      error: held,
    }));
    expect(logged(retries)).toEqual([]);
    // A key given up on is still an error: what it would have written is not written.
    expect(logged([{ type: 'dropped', key: 'apps/p0', attempts: 5, error: held }])).toHaveLength(1);
  });
});
