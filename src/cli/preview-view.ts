/**
 * A preview on the terminal: the move, the digest, the summary and the change (the pull
 * request's diffs, the webhook body, the Event), coloured like `git diff` when asked. Every
 * line from outside (file contents, names) is neutralized, so no repository can drive the
 * terminal.
 */
import type { Preview } from '../preview/previewer.js';
import type { StrategyChange } from '../preview/change-set.js';
import { neutralize } from '../text/text.js';

/** ANSI styles, or none. */
interface Paint {
  bold(text: string): string;
  added(text: string): string;
  removed(text: string): string;
  hunk(text: string): string;
}

const style = (code: string) => (text: string) => `\u001b[${code}m${text}\u001b[0m`;
const COLOURS: Paint = {
  bold: style('1'),
  added: style('32'),
  removed: style('31'),
  hunk: style('36'),
};
const PLAIN: Paint = { bold: (t) => t, added: (t) => t, removed: (t) => t, hunk: (t) => t };

/**
 * Whether to colour: on a terminal only, and never with NO_COLOR set to anything but ''
 * (no-color.org).
 */
export function wantsColour(
  out: NodeJS.WritableStream,
  env: Readonly<Record<string, string | undefined>>,
) {
  const tty = (out as { isTTY?: boolean }).isTTY === true;
  return tty && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}

/** The preview as lines of text, coloured when `colour`. */
export function renderPreview(preview: Preview, colour: boolean): string {
  const paint = colour ? COLOURS : PLAIN;
  const safe = (text: string) => neutralize(text);
  const { namespace, name } = preview.pipeline;
  const lines = [
    paint.bold(safe(`${namespace}/${name} ${preview.environment}: ${preview.summary}`)),
    `digest ${safe(preview.digest)}`,
  ];
  for (const move of preview.moves) {
    const source = move.source === undefined ? '' : ` from ${safe(sourceText(move.source))}`;
    lines.push(
      `  ${safe(move.target)}: ${safe(move.from ?? 'unknown')} -> ${safe(move.to)}${source}`,
    );
  }
  lines.push(...changeLines(preview.change, paint));
  return `${lines.join('\n')}\n`;
}

function sourceText(source: NonNullable<Preview['moves'][number]['source']>): string {
  const where = source.namespace === undefined ? source.name : `${source.namespace}/${source.name}`;
  const what = source.chart ?? source.path;
  return `${source.kind} ${where}${what === undefined ? '' : ` (${what})`}`;
}

function changeLines(change: StrategyChange, paint: Paint): string[] {
  switch (change.kind) {
    case 'pull-request': {
      const head = `pull request on ${change.repository}, ${change.baseBranch} at ${change.baseCommit}, branch ${change.branch}`;
      const diff = change.files.flatMap((f) => f.diff.split('\n').filter((l) => l !== ''));
      const cut = change.truncated ? ['(the diff is cut at 64 KiB)'] : [];
      return [neutralize(head), ...diff.map((l) => diffLine(neutralize(l), paint)), ...cut];
    }
    case 'webhook':
      return [`webhook ${neutralize(change.endpoint)}, body:`, neutralize(change.body)];
    case 'notification': {
      const notes = Object.entries(change.event.annotations).map(([k, v]) => `${k}=${v}`);
      const event = `Event ${change.event.type} ${change.event.reason}: ${change.event.message}`;
      return [neutralize(event), neutralize(`  annotations: ${notes.join(', ')}`)];
    }
    case 'none':
      return ['no promotion strategy: nothing is written'];
    case 'unavailable':
      return [neutralize(`the change cannot be known now (${change.reason}): ${change.message}`)];
  }
}

function diffLine(line: string, paint: Paint): string {
  if (line.startsWith('+++') || line.startsWith('---')) return paint.bold(line);
  if (line.startsWith('@@')) return paint.hunk(line);
  if (line.startsWith('+')) return paint.added(line);
  if (line.startsWith('-')) return paint.removed(line);
  return line;
}
