// @ts-check
/**
 * The fleet page: search and filters applied in the browser (rows hidden, not removed), and
 * live rows from the server (web/live.js) applied in one animation frame per burst. Rows are
 * found by their Pipeline id in a map, so an update touches only the rows it names. The release
 * trains' section above them comes whole in its own frames.
 */
import { applied, batched, follow } from './live.js';
import './copy.js';

const main = /** @type {HTMLElement} */ (document.querySelector('main[data-testid="fleet"]'));
const table = /** @type {HTMLTableElement} */ (main.querySelector('table.fleet'));
const tbody = /** @type {HTMLTableSectionElement} */ (document.getElementById('rows'));
const search = /** @type {HTMLInputElement} */ (document.getElementById('search'));
const shown = /** @type {HTMLElement} */ (document.getElementById('shown'));
const buttons = [...document.querySelectorAll('button[data-filter]')];

/** @type {Map<string, HTMLTableRowElement>} */
const rows = new Map();
/** @type {WeakMap<HTMLTableRowElement, string>} */
const texts = new WeakMap();
let flag = '';
let words = /** @type {string[]} */ ([]);

const textOf = (/** @type {HTMLTableRowElement} */ row) => {
  let text = texts.get(row);
  if (text === undefined) {
    text = (row.textContent ?? '').toLowerCase();
    texts.set(row, text);
  }
  return text;
};

const matches = (/** @type {HTMLTableRowElement} */ row) => {
  if (flag !== '' && !(row.dataset.flags ?? '').split(' ').includes(flag)) return false;
  const text = textOf(row);
  return words.every((w) => text.includes(w));
};

const count = () => {
  let visible = 0;
  for (const row of rows.values()) if (!row.hidden) visible += 1;
  shown.textContent = `${visible} of ${rows.size} shown`;
};

/** @param {Iterable<HTMLTableRowElement>} subset */
const filter = (subset) => {
  for (const row of subset) row.hidden = !matches(row);
  count();
};

for (const row of tbody.rows) if (row.dataset.pipeline) rows.set(row.dataset.pipeline, row);

let typing = /** @type {ReturnType<typeof setTimeout> | undefined} */ (undefined);
search.addEventListener('input', () => {
  clearTimeout(typing);
  typing = setTimeout(() => {
    words = search.value
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => w !== '');
    filter(rows.values());
  }, 120);
});
for (const button of buttons) {
  button.addEventListener('click', () => {
    const pressed = /** @type {HTMLElement} */ (button).dataset.filter ?? '';
    flag = flag === pressed ? '' : pressed;
    for (const b of buttons)
      b.setAttribute(
        'aria-pressed',
        String(/** @type {HTMLElement} */ (b.dataset.filter ?? '') === flag),
      );
    filter(rows.values());
  });
}
document.addEventListener('keydown', (event) => {
  if (event.key === '/' && document.activeElement !== search) {
    event.preventDefault();
    search.focus();
  } else if (event.key === 'Escape' && document.activeElement === search) {
    search.value = '';
    words = [];
    filter(rows.values());
  }
});

/** @param {string} html */
const rowOf = (html) => {
  const template = document.createElement('template');
  template.innerHTML = `<table><tbody>${html}</tbody></table>`;
  return /** @type {HTMLTableRowElement | null} */ (template.content.querySelector('tr'));
};

/** Where a new row goes: before the first row whose id sorts after it. */
const insert = (/** @type {string} */ id, /** @type {HTMLTableRowElement} */ row) => {
  for (const existing of tbody.rows) {
    if ((existing.dataset.pipeline ?? '') > id) {
      tbody.insertBefore(row, existing);
      return;
    }
  }
  tbody.append(row);
};

/** @param {{key: string, headers: string[]}} plan */
const replaceHeaders = (plan) => {
  main.dataset.columns = plan.key;
  const head = /** @type {HTMLTableRowElement} */ (table.tHead?.rows[0]);
  while (head.cells.length > 1) head.deleteCell(1);
  for (const name of plan.headers) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = name;
    head.append(th);
  }
};

/** @param {{complete: boolean, plan?: {key: string, headers: string[]}, rows: [string, string | null][]}} frame */
const applyRows = (frame) => {
  if (frame.plan !== undefined && frame.plan.key !== main.dataset.columns)
    replaceHeaders(frame.plan);
  const keep = new Set();
  /** @type {HTMLTableRowElement[]} */
  const touched = [];
  for (const [id, html] of frame.rows) {
    const existing = rows.get(id);
    const row = html === null ? null : rowOf(html);
    keep.add(id);
    if (row === null) {
      existing?.remove();
      rows.delete(id);
    } else if (existing !== undefined) {
      existing.replaceWith(row);
      rows.set(id, row);
      touched.push(row);
    } else {
      insert(id, row);
      rows.set(id, row);
      touched.push(row);
    }
  }
  if (frame.complete) {
    for (const [id, row] of [...rows]) {
      if (keep.has(id)) continue;
      row.remove();
      rows.delete(id);
    }
    // A complete frame after a reconnect lists rows in id order: rebuild the order from it.
    const sorted = [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    rows.clear();
    for (const [id, row] of sorted) {
      tbody.append(row);
      rows.set(id, row);
    }
  }
  for (const row of touched) row.hidden = !matches(row);
};

/** @param {{total: number, waiting: number, failed: number, unhealthy: number}} counts */
const applyCounts = (counts) => {
  for (const [name, value] of Object.entries(counts)) {
    const element = main.querySelector(`[data-testid="count-${name}"]`);
    if (element !== null) element.textContent = String(value);
  }
};

/** @type {any[]} */
const queue = [];
const drain = batched(() => {
  const started = performance.now();
  const frames = queue.splice(0);
  let items = 0;
  for (const frame of frames) {
    applyRows(frame);
    items += frame.rows.length;
  }
  const last = frames.at(-1);
  if (last !== undefined) applyCounts(last.counts);
  count();
  applied(items, performance.now() - started);
});

/**
 * The trains' section, replaced whole; a train's detail the reader opened stays open.
 * @param {{html: string}} frame
 */
const applyTrains = (frame) => {
  const section = document.getElementById('trains');
  if (section === null) return;
  const open = new Set(
    [...section.querySelectorAll('details[open]')].map((d) => d.getAttribute('data-detail')),
  );
  const template = document.createElement('template');
  template.innerHTML = frame.html;
  const next = template.content.firstElementChild;
  if (next === null) return;
  for (const d of next.querySelectorAll('details'))
    if (open.has(d.getAttribute('data-detail'))) d.setAttribute('open', '');
  section.replaceWith(next);
  applied(next.querySelectorAll('tr[data-train]').length, 0);
};

follow('/live', main.dataset.since ?? '', {
  rows: (frame) => {
    queue.push(frame);
    drain();
  },
  trains: applyTrains,
});
