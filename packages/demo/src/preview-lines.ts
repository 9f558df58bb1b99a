/**
 * What `demo status` shows of an environment that waits for an approval: the change the
 * approval would let through, as the gateway previews it (`GET .../environments/{env}/preview`):
 * its summary, the digest an approval signs, and the pull request's diff against its base.
 */

/** The parts of a preview these lines read (docs/api.md has the whole answer). */
interface PreviewAnswer {
  summary: string;
  digest: string;
  change:
    | { kind: 'pull-request'; baseCommit: string; files: { path: string; diff: string }[] }
    | { kind: string };
}

/** How a line asks the gateway for a preview: the answer's status and JSON. */
export type PreviewFetch = (path: string) => Promise<{ ok: boolean; body: unknown }>;

/**
 * The preview lines of every environment in `waiting` (names of environments that wait for an
 * approval), read through `fetch` under `pipelinePath`; an environment whose preview cannot be
 * read says so in one line.
 */
export async function previewLines(
  fetch: PreviewFetch,
  pipelinePath: string,
  waiting: readonly string[],
): Promise<string> {
  let out = '';
  for (const env of waiting) {
    const answer = await fetch(`${pipelinePath}/environments/${encodeURIComponent(env)}/preview`);
    if (!answer.ok) {
      out += `${env} preview: not available now\n`;
      continue;
    }
    out += linesOf(env, answer.body as PreviewAnswer);
  }
  return out;
}

function linesOf(env: string, preview: PreviewAnswer): string {
  let out = `${env} waits on this change: ${preview.summary}\n  digest ${preview.digest} (what a bound approval signs)\n`;
  const { change } = preview;
  if (change.kind === 'pull-request' && 'files' in change) {
    out += `  against ${change.baseCommit.slice(0, 12)}:\n`;
    for (const file of change.files) out += indent(file.diff);
  }
  return out;
}

function indent(diff: string): string {
  return diff
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => `    ${line}\n`)
    .join('');
}
