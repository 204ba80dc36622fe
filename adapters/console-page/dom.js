// @ts-check
// The page builds its DOM from data with these helpers only: text goes in as text nodes, never as markup,
// so nothing a requester put in a sign request (an argument, a typed-data string, a name) can become HTML.

/**
 * @typedef {string | number | bigint | Node | null | undefined | false | Child[]} Child
 * @typedef {{ [name: string]: string | number | boolean | null | undefined | EventListener }} Props
 */

/**
 * An element: `h('p', { class: 'x' }, 'text', child)`. Props named `on<event>` are listeners; `true` sets an
 * empty attribute; `false`, null and undefined leave it out.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Props | null} [props]
 * @param {Child[]} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === false || value === null || value === undefined) continue;
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

/**
 * @param {Node} parent
 * @param {Child[]} children
 */
export function append(parent, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else if (child instanceof Node) parent.appendChild(child);
    else parent.appendChild(document.createTextNode(String(child)));
  }
}

/**
 * A description list from [term, value] pairs; pairs whose value is null or undefined are left out.
 * @param {[string, Child][]} pairs
 * @param {string} [className]
 */
export function facts(pairs, className = 'facts') {
  return h(
    'dl',
    { class: className },
    pairs.filter(([, v]) => v !== null && v !== undefined).map(([term, value]) => h('div', null, h('dt', null, term), h('dd', null, value))),
  );
}

/**
 * A table with a caption (hidden when `hideCaption`) and header cells for columns.
 * @param {{ caption: string, hideCaption?: boolean, head: string[], rows: Child[][], className?: string }} o
 */
export function table(o) {
  // A region that scrolls sideways on a narrow screen: focusable, so a keyboard can scroll it too.
  return h(
    'div',
    { class: 'table-wrap', role: 'region', 'aria-label': o.caption, tabindex: '0' },
    h(
      'table',
      { class: o.className ?? 'grid' },
      h('caption', o.hideCaption ? { class: 'visually-hidden' } : null, o.caption),
      h('thead', null, h('tr', null, o.head.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', null, o.rows.map(tableRow)),
    ),
  );
}

/**
 * A row of `table`'s body: its first cell heads the row.
 * @param {Child[]} cells
 */
export const tableRow = (cells) => h('tr', null, cells.map((c, i) => (i === 0 ? h('th', { scope: 'row' }, c) : h('td', null, c))));

/**
 * Text that may be long and unbroken (an address, a hash, hex data): wraps anywhere, keeps its letters.
 * @param {string} text
 */
export const code = (text) => h('code', { class: 'mono' }, text);
