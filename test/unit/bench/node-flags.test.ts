/**
 * The benchmark starts the gateway as the image does: the ENTRYPOINT's Node flags and the
 * allocator settings its ENV lines set, read from the Dockerfile itself.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allocatorEnvironment, entrypointNodeFlags } from '../../../bench/node-flags.js';

const SAMPLE = [
  'FROM node:24-slim AS runtime',
  'ENV NODE_ENV=production',
  '# a comment',
  'ENV MALLOC_ARENA_MAX=2 \\',
  '    MALLOC_MMAP_THRESHOLD_=131072',
  'ENV MALLOC_TRIM_THRESHOLD_ 1048576',
  'ENTRYPOINT ["node", "--max-semi-space-size=4", "dist/server.js"]',
].join('\n');

describe('the image as the benchmark reads it', () => {
  it('takes the flags between node and the script', () => {
    expect(entrypointNodeFlags(SAMPLE)).toEqual(['--max-semi-space-size=4']);
  });

  it('takes the MALLOC_ variables of both ENV forms, continued lines included, and no others', () => {
    expect(allocatorEnvironment(SAMPLE)).toEqual({
      MALLOC_ARENA_MAX: '2',
      MALLOC_MMAP_THRESHOLD_: '131072',
      MALLOC_TRIM_THRESHOLD_: '1048576',
    });
  });

  it("reads the project's Dockerfile: two arenas and a fixed mmap threshold", () => {
    const env = allocatorEnvironment(readFileSync('Dockerfile', 'utf8'));
    expect(env.MALLOC_ARENA_MAX).toBe('2');
    expect(env.MALLOC_MMAP_THRESHOLD_).toBe('131072');
  });
});
