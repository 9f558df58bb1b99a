/**
 * What a body template can see: the event's fields and nothing else. The view is a deep, frozen
 * copy made of prototype-less objects and arrays, so that a name such as `constructor`,
 * `__proto__` or `toString` finds nothing (mustache looks names up with `in`, which walks the
 * prototype chain), and no function is reachable to be called. An object or list written as a
 * value renders empty, never `[object Object]`.
 */
import { eventData } from './formats/event-names.js';
import type { NotificationEvent } from './notification-event.js';

/** A prototype-less, frozen object of the view. */
export type ViewObject = Readonly<Record<string, unknown>>;

/** The template view of one event: `id` and every other field of the contract. */
export function templateView(event: NotificationEvent): ViewObject {
  return viewValue({ id: event.id, ...eventData(event) }) as ViewObject;
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
