/**
 * Promotion windows, pure: for `now` and the windows that apply to an environment, whether
 * automatic promotions may run and, when not, the first instant they may. The recurrence and
 * time-zone arithmetic is not done here: each window carries a WindowSchedule compiled from its
 * spec by src/windows (RFC 5545 rules and cron, with their DST rules), passed in as an input,
 * so this module needs no library and no clock and is tested with plain arithmetic schedules.
 */

/** A window's occurrences on the time line, as src/windows compiles them. */
export interface WindowSchedule {
  /** The earliest occurrence start at or after `fromMs`, or undefined when none follows. */
  nextStart(fromMs: number): number | undefined;
  /** The end (exclusive) of the occurrence that starts at `startMs`; always after it. */
  endOf(startMs: number): number;
  /** No occurrence lasts longer than this (ms, > 0). */
  readonly maxDurationMs: number;
  /** `ms` in the window's time zone, for people: `Mon 2025-03-31 09:00 Europe/Berlin (+02:00)`. */
  local(ms: number): string;
}

/** Allow: automatic promotions only inside. Deny: never inside. */
export type WindowType = 'Allow' | 'Deny';

/** Where a window is declared: the operator's configuration, the Pipeline, or the environment. */
export type WindowLevel = 'fleet' | 'pipeline' | 'environment';

/** One compiled window. */
export interface PromotionWindow {
  name: string;
  type: WindowType;
  level: WindowLevel;
  /** Whether a revision the environment's approval gate has approved may pass while it holds. */
  authorizationsPassFreeze: boolean;
  /** `mode: Shadow`: evaluated and recorded as what it would hold, never holding (absent: enforced). */
  shadow?: true;
  schedule: WindowSchedule;
}

/** An operator's window (config `promotion.windows`), for the environments it names (empty: all). */
export interface FleetWindow extends PromotionWindow {
  environments: readonly string[];
}

/** One place's windows compiled, or the problem that makes them unusable (a bad rule). */
export type CompiledWindows =
  { ok: true; windows: readonly PromotionWindow[] } | { ok: false; problem: string };

/** EvaluationInput.windows: every window that may apply, compiled, by where it is declared. */
export interface WindowsInput {
  /** The operator's windows. */
  fleet?: readonly FleetWindow[];
  /** spec.promotion.windows; must be present when the spec has any. */
  pipeline?: CompiledWindows;
  /** spec.environments[].promotion.windows by environment name; present for each that has any. */
  environments?: Readonly<Record<string, CompiledWindows | undefined>>;
}

/** One occurrence of a window: [start, end). */
export interface Occurrence {
  window: PromotionWindow;
  start: number;
  end: number;
}

/** Why promotions may not run at an instant. */
export interface Closure {
  /** Deny occurrences in force. */
  denying: Occurrence[];
  /** The allow windows of each level none of whose occurrences is in force (one list per level). */
  outside: PromotionWindow[][];
}

/** A window whose rule cannot be followed (a library error or a runaway rule): decide nothing. */
export class WindowError extends Error {
  constructor(
    readonly window: PromotionWindow,
    detail: string,
  ) {
    super(`window "${window.name}" (${window.level}): ${detail}`);
    this.name = 'WindowError';
  }
}

/** Occurrences in force at once, at most; a rule that has more is a WindowError, never a guess. */
const MAX_STEPS = 2_000;
/** How far ahead one search for the next opening looks (a year and a day: yearly windows). */
export const OPENING_HORIZON_MS = 367 * 86_400_000;

/** The occurrence of `window` in force at `t` (start <= t < end) that ends last, if any. */
export function occurrenceAt(window: PromotionWindow, t: number): Occurrence | undefined {
  const schedule = window.schedule;
  let found: Occurrence | undefined;
  let start = call(window, () => schedule.nextStart(t - schedule.maxDurationMs + 1));
  for (let step = 0; start !== undefined && start <= t; step++) {
    if (step >= MAX_STEPS)
      throw new WindowError(window, `more than ${MAX_STEPS} occurrences overlap`);
    const from = start;
    const end = call(window, () => schedule.endOf(from));
    if (end > t && (found === undefined || end > found.end)) found = { window, start, end };
    start = call(window, () => schedule.nextStart(from + 1));
  }
  return found;
}

/** Why promotions may not run at `t` under `windows`, or undefined when they may. */
export function closureAt(windows: readonly PromotionWindow[], t: number): Closure | undefined {
  const denying = windows
    .filter((w) => w.type === 'Deny')
    .map((w) => occurrenceAt(w, t))
    .filter((o): o is Occurrence => o !== undefined);
  const outside = allowLevels(windows).filter((level) =>
    level.every((w) => occurrenceAt(w, t) === undefined),
  );
  return denying.length === 0 && outside.length === 0 ? undefined : { denying, outside };
}

/**
 * Where the search for the next opening ended: `open` at `at` (the first instant at or after
 * the start when no window holds), or, when its budget ran out first, `open: false` with `at`
 * the instant it reached (no opening before it: look again then).
 */
export interface Opening {
  open: boolean;
  at: number;
  /** The window whose occurrence starts (allow) or ends (deny) at `at`. */
  by?: PromotionWindow;
}

/** Jumps one search for the next opening may take (most find it in one or two). */
const OPENING_STEPS = 48;

/**
 * The next opening at or after `from`. Each step jumps to a time no opening can precede: the
 * latest end of the deny occurrences in force, or the latest of the next starts of the allow
 * levels not in force; so an opening found is open by construction. After OPENING_STEPS jumps
 * or OPENING_HORIZON_MS (deny occurrences that overlap for months, allow levels that rarely
 * meet), the instant reached comes back as not open, to be searched on from then. Undefined:
 * no opening ever (an allow level whose rules have ended).
 */
export function nextOpening(
  windows: readonly PromotionWindow[],
  from: number,
): Opening | undefined {
  let t = from;
  let by: PromotionWindow | undefined;
  for (let step = 0; step < OPENING_STEPS && t - from <= OPENING_HORIZON_MS; step++) {
    const closure = closureAt(windows, t);
    if (closure === undefined) return { open: true, at: t, ...(by === undefined ? {} : { by }) };
    const jump = closure.denying.length > 0 ? lastEnd(closure.denying) : nextAllowed(closure, t);
    if (jump === undefined) return undefined;
    t = jump.at;
    by = jump.window;
  }
  return { open: false, at: t, ...(by === undefined ? {} : { by }) };
}

function lastEnd(
  occurrences: readonly Occurrence[],
): { at: number; window: PromotionWindow } | undefined {
  let last: Occurrence | undefined;
  for (const o of occurrences) if (last === undefined || o.end > last.end) last = o;
  return last === undefined ? undefined : { at: last.end, window: last.window };
}

/** The latest, over the levels not in force, of each level's earliest next start after `t`. */
function nextAllowed(
  closure: Closure,
  t: number,
): { at: number; window: PromotionWindow } | undefined {
  let latest: { at: number; window: PromotionWindow } | undefined;
  for (const level of closure.outside) {
    let first: { at: number; window: PromotionWindow } | undefined;
    for (const window of level) {
      const start = call(window, () => window.schedule.nextStart(t));
      if (start !== undefined && (first === undefined || start < first.at))
        first = { at: start, window };
    }
    if (first === undefined) return undefined;
    if (latest === undefined || first.at > latest.at) latest = first;
  }
  return latest;
}

/** Allow windows grouped by level: within a level they add up, across levels each must hold. */
function allowLevels(windows: readonly PromotionWindow[]): PromotionWindow[][] {
  const levels = new Map<WindowLevel, PromotionWindow[]>();
  for (const w of windows) {
    if (w.type !== 'Allow') continue;
    const list = levels.get(w.level) ?? [];
    list.push(w);
    levels.set(w.level, list);
  }
  return [...levels.values()];
}

/** Runs one schedule call, turning a library's failure or a non-number into a WindowError. */
function call<T extends number | undefined>(window: PromotionWindow, fn: () => T): T {
  let value: T;
  try {
    value = fn();
  } catch (error) {
    if (error instanceof WindowError) throw error;
    throw new WindowError(window, error instanceof Error ? error.message : 'the rule failed');
  }
  if (value !== undefined && !Number.isFinite(value))
    throw new WindowError(window, 'the rule gave no time');
  return value;
}
