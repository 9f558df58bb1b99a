// @ts-check
/**
 * Copy buttons for long ids (a revision, a statement id, src/ui/short-ids.ts): the page shows
 * them shortened, the whole value in `data-copy`. The buttons stay hidden until this runs (it
 * marks the document `js`), so a page without scripts shows no button that does nothing. One
 * listener on the document serves the buttons live updates bring too. Where the Clipboard API is
 * missing (a plain-http origin other than localhost), the copy goes through a selected textarea.
 */

document.documentElement.classList.add('js');

/** @param {string} value */
const viaSelection = (value) => {
  const area = document.createElement('textarea');
  area.value = value;
  area.setAttribute('readonly', '');
  area.className = 'vh';
  document.body.append(area);
  area.select();
  const done = document.execCommand('copy');
  area.remove();
  return done;
};

/** @param {string} value */
const copy = async (value) => {
  if (navigator.clipboard !== undefined) {
    try {
      await navigator.clipboard.writeText(value);
      return true;
    } catch {
      // Refused (no permission, no focus): try the selection instead.
    }
  }
  return viaSelection(value);
};

document.addEventListener('click', (event) => {
  const target = event.target instanceof Element ? event.target.closest('button.copy') : null;
  if (!(target instanceof HTMLButtonElement)) return;
  const button = target;
  void copy(button.dataset.copy ?? '').then((done) => {
    button.textContent = done ? 'copied' : 'copy failed';
    setTimeout(() => {
      button.textContent = 'copy';
    }, 1500);
  });
});
