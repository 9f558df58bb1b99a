// @ts-check
/**
 * The Pipeline page: its body arrives whole from the server on each change (web/live.js); only
 * the sections and environment cards whose HTML changed are replaced, so the rest of the page
 * (focus, selection, scroll) stays as it is.
 */
import './copy.js';
import { applied, follow } from './live.js';

const main = /** @type {HTMLElement} */ (
  document.querySelector('main[data-testid="pipeline-page"]')
);
const [namespace, name] = (main.dataset.pipeline ?? '/').split('/');
const path = `/live/pipelines/${encodeURIComponent(namespace ?? '')}/${encodeURIComponent(name ?? '')}`;

/**
 * Replaces the children of `current` that differ from those of `next`, matched by id or
 * data-env; descends one level into lists of environments.
 * @param {Element} current
 * @param {Element} next
 * @returns {number} how many elements were replaced
 */
const patch = (current, next) => {
  if (current.outerHTML === next.outerHTML) return 0;
  const key = (/** @type {Element} */ e) => e.id || e.getAttribute('data-env') || '';
  const mine = [...current.children];
  const theirs = [...next.children];
  const keyed = theirs.every((e) => key(e) !== '') && mine.length === theirs.length;
  if (!keyed || !theirs.every((e, i) => key(e) === key(/** @type {Element} */ (mine[i])))) {
    current.replaceWith(next);
    return 1;
  }
  let replaced = 0;
  theirs.forEach((child, i) => {
    const old = /** @type {Element} */ (mine[i]);
    if (old.outerHTML === child.outerHTML) return;
    const list = old.querySelector(':scope > ol.envs');
    const newList = child.querySelector(':scope > ol.envs');
    if (list !== null && newList !== null && old.children.length === child.children.length) {
      replaced += patch(list, newList);
    } else {
      old.replaceWith(child);
      replaced += 1;
    }
  });
  return replaced;
};

follow(path, main.dataset.since ?? '', {
  pipeline: (frame) => {
    const started = performance.now();
    const body = document.getElementById('pipeline-body');
    if (frame.gone === true) {
      if (body !== null)
        body.innerHTML =
          '<p class="gone">This Pipeline no longer exists, or you may no longer see it.</p>';
      applied(1, performance.now() - started);
      return;
    }
    const template = document.createElement('template');
    template.innerHTML = frame.html;
    const next = template.content.firstElementChild;
    if (body === null || next === null) return;
    applied(patch(body, next), performance.now() - started);
  },
});
