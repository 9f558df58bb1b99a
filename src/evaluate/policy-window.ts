/**
 * The promotion-window part of an environment's policy view (policy-view.ts): whether its
 * windows let promotions run at `now`, which windows keep it closed and when it next opens, or,
 * while open, when it next closes. Pure, and found with the windows gate's own helpers
 * (windowsFor, closureAt, nextOpening), so it names the windows and the opening the gate's
 * decision names.
 */
import { rfc3339 } from '../time/kube-time.js';
import type { GateArgs } from './gate-args.js';
import { Reasons } from './reasons.js';
import { windowsFor } from './windows-gate.js';
import {
  closureAt,
  nextOpening,
  occurrenceAt,
  WindowError,
  type Closure,
  type PromotionWindow,
  type WindowLevel,
  type WindowType,
} from '../windows/promotion-window.js';

/** One window, as the view names it. */
export interface WindowName {
  name: string;
  type: WindowType;
  /** Where it is declared: the operator's configuration, the Pipeline, the environment. */
  level: WindowLevel;
}

/** The windows of one environment at `now`. */
export interface WindowView {
  /** Whether its windows let automatic promotions run now. */
  open: boolean;
  /** While closed: InDenyWindow, OutsidePromotionWindow or InvalidPromotionWindow. */
  reason?: string;
  /** While closed: the deny windows in force, else the allow windows none of which is. */
  windows?: WindowName[];
  /** While closed: the first instant no window holds (RFC 3339). */
  nextOpening?: string;
  /** The same instant in the time zone of the window that opens it. */
  nextOpeningLocal?: string;
  /** While closed and no opening was found within the search: none before this instant. */
  noOpeningBefore?: string;
  /** While open: the next instant a window closes it, when one is found a few occurrences ahead. */
  closesAt?: string;
  /** InvalidPromotionWindow: the field and what is wrong with it. */
  problem?: string;
}

/** Changes looked through for the next closing: allow occurrences that follow each other. */
const CLOSING_STEPS = 8;

/**
 * The window part of `args.env`'s view, or undefined when no window applies to it. Break-glass
 * does not change it: whether the windows hold a revision is the view's `holding`, the gate's.
 */
export function windowView(args: GateArgs): WindowView | undefined {
  const found = windowsFor(args);
  if (!found.ok) return invalid(found.problem);
  if (found.windows.length === 0) return undefined;
  const now = args.input.now;
  try {
    const closure = closureAt(found.windows, now);
    if (closure === undefined) {
      const closes = nextClosing(found.windows, now);
      return { open: true, ...(closes === undefined ? {} : { closesAt: rfc3339(closes) }) };
    }
    return closed(found.windows, closure, now);
  } catch (error) {
    if (error instanceof WindowError) return invalid(error.message);
    throw error;
  }
}

function invalid(problem: string): WindowView {
  return { open: false, reason: Reasons.InvalidPromotionWindow, problem };
}

/** What keeps the windows closed at `now`, and the next opening the gate names. */
function closed(windows: readonly PromotionWindow[], closure: Closure, now: number): WindowView {
  const denying = closure.denying.map((o) => o.window);
  const holding = [...new Set(denying.length > 0 ? denying : closure.outside.flat())];
  const view: WindowView = {
    open: false,
    reason: denying.length > 0 ? Reasons.InDenyWindow : Reasons.OutsidePromotionWindow,
    windows: holding.map((w) => ({ name: w.name, type: w.type, level: w.level })),
  };
  const opening = nextOpening(windows, now);
  if (opening === undefined) return view;
  if (!opening.open) return { ...view, noOpeningBefore: rfc3339(opening.at) };
  const local = localTime(opening.at, opening.by ?? holding[0]);
  return {
    ...view,
    nextOpening: rfc3339(opening.at),
    ...(local === undefined ? {} : { nextOpeningLocal: local }),
  };
}

function localTime(at: number, window: PromotionWindow | undefined): string | undefined {
  try {
    return window?.schedule.local(at);
  } catch {
    return undefined;
  }
}

/**
 * The first instant after `from` (when the windows let promotions run) at which they do not:
 * a deny occurrence starting or an allow occurrence in force ending, unless another one takes
 * over at once. Undefined when none is found within CLOSING_STEPS changes, or a rule fails.
 */
function nextClosing(windows: readonly PromotionWindow[], from: number): number | undefined {
  try {
    let t = from;
    for (let step = 0; step < CLOSING_STEPS; step++) {
      const change = nextChange(windows, t);
      if (change === undefined) return undefined;
      if (closureAt(windows, change) !== undefined) return change;
      t = change;
    }
    return undefined;
  } catch {
    // A rule that fails here fails the gate too, at its next check; the closing is only a hint.
    return undefined;
  }
}

/** The earliest instant after `t` at which a deny occurrence starts or an allow one in force ends. */
function nextChange(windows: readonly PromotionWindow[], t: number): number | undefined {
  let first: number | undefined;
  for (const window of windows) {
    const at = window.type === 'Deny' ? window.schedule.nextStart(t) : occurrenceAt(window, t)?.end;
    if (at !== undefined && Number.isFinite(at) && at > t && (first === undefined || at < first))
      first = at;
  }
  return first;
}
