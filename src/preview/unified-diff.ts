/**
 * The pull request's change as a person reads it: one unified diff per edited file (jsdiff,
 * three lines of context, `a/` and `b/` paths as Git prints them), cut at a size bound so
 * that no repository can make a preview, a page or a notification arbitrarily large.
 */
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import type { FileChange } from './change-set.js';

/** The most diff text (UTF-8 bytes, all files together) a preview holds. */
export const MAX_DIFF_BYTES = 64 * 1024;

/** A file's text before and after, as the strategy's edit computed them. */
export interface EditedText {
  path: string;
  before: string;
  after: string;
}

/** The unified diff of one file. */
export function fileDiff(file: EditedText): string {
  return createTwoFilesPatch(`a/${file.path}`, `b/${file.path}`, file.before, file.after, '', '', {
    context: 3,
    headerOptions: FILE_HEADERS_ONLY,
  });
}

/**
 * Each file's diff in path order, the whole within `maxBytes`: a file past the bound keeps the
 * lines that fit (a whole file's diff is never split mid-line) and `truncated` says so.
 */
export function fileChanges(
  files: readonly EditedText[],
  maxBytes = MAX_DIFF_BYTES,
): { files: FileChange[]; truncated: boolean } {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const out: FileChange[] = [];
  let left = maxBytes;
  let truncated = false;
  for (const file of sorted) {
    const diff = fileDiff(file);
    const size = Buffer.byteLength(diff, 'utf8');
    if (size <= left) {
      out.push({ path: file.path, diff });
      left -= size;
      continue;
    }
    truncated = true;
    out.push({ path: file.path, diff: linesWithin(diff, left) });
    left = 0;
  }
  return { files: out, truncated };
}

/** The leading whole lines of `text` within `bytes` UTF-8 bytes. */
function linesWithin(text: string, bytes: number): string {
  let kept = '';
  let size = 0;
  for (const line of text.split(/(?<=\n)/)) {
    const n = Buffer.byteLength(line, 'utf8');
    if (size + n > bytes) break;
    kept += line;
    size += n;
  }
  return kept;
}
