/**
 * Durations as Flux users write them in their manifests (`interval: 5m`, `timeout: 1h30m`): Go's
 * time.ParseDuration syntax restricted to the units Flux's CRDs accept (ms, s, m, h), the
 * same pattern its CRDs validate with. Pure.
 */

/** The pattern Flux's CRDs give their duration fields; the Pipeline CRD uses it too. */
export const DURATION_PATTERN = /^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$/;

/**
 * The longest duration the gateway counts: a year. Longer ones are refused (a typo, never a
 * plan), which also keeps every time computed from one inside what a Date can hold.
 */
export const MAX_DURATION_MS = 8_760 * 3_600_000;

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * Milliseconds of a duration such as `1h30m` or `1.5s` (rounded to whole ms), or undefined when
 * it does not match DURATION_PATTERN or is longer than `max` (MAX_DURATION_MS unless given: a
 * promotion window may last a year and a day).
 */
export function parseDuration(text: string, max = MAX_DURATION_MS): number | undefined {
  if (text.length > 64 || !DURATION_PATTERN.test(text)) return undefined;
  let total = 0;
  for (const part of text.matchAll(/([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)/g)) {
    total += Number(part[1]) * (UNIT_MS[part[2] ?? ''] ?? Number.NaN);
  }
  const ms = Math.round(total);
  return Number.isFinite(ms) && ms <= max ? ms : undefined;
}

/**
 * A duration for people, as Go prints one but without zero parts: `1h5m`, `12m30s`, `45s`,
 * `250ms`, `0s`. Whole seconds are shown from 1 s up (the sub-second part is dropped: round
 * before calling where the direction matters).
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return '0s';
  if (ms < 1_000) return `${String(Math.round(ms))}ms`;
  const seconds = Math.floor(ms / 1_000);
  const h = Math.floor(seconds / 3_600);
  const m = Math.floor((seconds % 3_600) / 60);
  const s = seconds % 60;
  const parts = [
    h > 0 ? `${String(h)}h` : '',
    m > 0 ? `${String(m)}m` : '',
    s > 0 ? `${String(s)}s` : '',
  ];
  return parts.join('');
}
