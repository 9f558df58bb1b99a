/**
 * What a body template can see: the event's fields and nothing else. The view is a deep, frozen
 * copy made of prototype-less objects and arrays of strings, numbers and booleans, and templates
 * are rendered through ViewContext, whose lookups follow only own data properties of those
 * objects and arrays: mustache's own lookup walks the prototype chain (`in`) and reads fields of
 * strings and numbers through their wrappers, so `{{revision.constructor.name}}` would reach
 * `String`, a function, and its name. No prototype, constructor, getter or function is reachable
 * by any name, and a string, number or boolean has no fields. An object or list written as a
 * value renders empty, never `[object Object]`.
 */
import Mustache from 'mustache';
import { eventData } from './formats/event-names.js';
import type { NotificationEvent } from './notification-event.js';

/** A prototype-less, frozen object of the view. */
export type ViewObject = Readonly<Record<string, unknown>>;

/** The template view of one event: `id` and every other field of the contract. */
export function templateView(event: NotificationEvent): ViewObject {
  return viewValue({ id: event.id, ...eventData(event) }) as ViewObject;
}

/**
 * The context to render a template view in: a name (or dotted path) finds a value only through
 * own data properties of the view's prototype-less objects and arrays (an array's items and its
 * `length`), each step landing on a string, number, boolean or another such object or array;
 * anything else is a miss, looked up in the enclosing section's context as mustache does.
 */
export class ViewContext extends Mustache.Context {
  /** A section's context over `view` (an item of a list, or a field's value). */
  override push(view: unknown): ViewContext {
    return new ViewContext(view, this);
  }

  /** The value `name` names here or in an enclosing context, or undefined. */
  override lookup(name: string): unknown {
    if (name === '.') return isViewValue(this.view) ? this.view : undefined;
    const found = walk(this.view, name.split('.'));
    // Every enclosing context is a ViewContext too: push() makes them.
    return found.hit ? found.value : this.parent?.lookup(name);
  }
}

/** Follows `path` from `start` through own data properties of view containers only. */
function walk(start: unknown, path: readonly string[]): { hit: boolean; value?: unknown } {
  let current = start;
  for (const name of path) {
    if (!isViewContainer(current)) return { hit: false };
    const field = Object.getOwnPropertyDescriptor(current, name);
    // A getter has no `value`: it is never called.
    if (field === undefined || !('value' in field)) return { hit: false };
    const value: unknown = field.value;
    if (!isViewValue(value)) return { hit: false };
    current = value;
  }
  return { hit: true, value: current };
}

function isViewContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === null;
}

function isViewValue(value: unknown): boolean {
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' || isViewContainer(value);
}

function viewValue(value: unknown): unknown {
  if (Array.isArray(value)) {
    const list: unknown[] = value.map(viewValue);
    Object.setPrototypeOf(list, null);
    return sealed(list);
  }
  if (value !== null && typeof value === 'object') {
    const copy = Object.create(null) as Record<string, unknown>;
    for (const [key, field] of Object.entries(value)) copy[key] = viewValue(field);
    return sealed(copy);
  }
  return value;
}

// `{{{pipeline}}}` makes mustache concatenate the object itself: without a prototype that
// would throw, so the conversion is given here, as a symbol no template name can reach.
function sealed<T extends object>(target: T): T {
  Object.defineProperty(target, Symbol.toPrimitive, { value: () => '' });
  return Object.freeze(target);
}
