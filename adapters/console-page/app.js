// @ts-check
// The approvers' console (docs/console.md): a small hash router over the views of views.js. The page is
// served at /console/ by the vault with a strict Content-Security-Policy: no inline script or style, no
// eval, nothing from another origin.
//
// Routes: #enrol=<token> (the invitation; read once, then taken out of the address bar and history),
// #/signin, #/pending (the default), #/approvals/<id>, #/proposals, #/proposals/<id>, #/history.

import { api, ApiError } from './api.js';
import { h } from './dom.js';
import { approvalView, enrolView, historyView, pendingView, proposalView, proposalsView, signInView } from './views.js';

/** @typedef {import('./views.js').Context} Context */

const main = /** @type {HTMLElement} */ (document.getElementById('main'));
const status = /** @type {HTMLElement} */ (document.getElementById('status'));
const nav = /** @type {HTMLElement} */ (document.getElementById('nav'));
const who = /** @type {HTMLElement} */ (document.getElementById('who'));
const whoName = /** @type {HTMLElement} */ (document.getElementById('who-name'));
const signOut = /** @type {HTMLButtonElement} */ (document.getElementById('sign-out'));

/** The invitation token, held in memory only once read from the address. */
let enrolToken = /** @type {string | null} */ (null);
/** Bumped by every render: an answer that arrives after a newer navigation is dropped. */
let renderCount = 0;
/** Set by ctx.go: the status line says how the step that navigated ended, so that render keeps it. */
let keepStatusOnce = false;

/** @type {Context} */
const ctx = {
  me: null,
  signedIn(approver, next = '#/pending') {
    ctx.me = approver;
    enrolToken = null;
    showWho();
    ctx.go(next);
  },
  go(hash) {
    keepStatusOnce = true;
    if (location.hash === hash) void render();
    else location.hash = hash;
  },
  rerender: () => void render({ keepStatus: true }),
  announce(text, kind = 'info') {
    status.className = `status status-${kind}`;
    // Emptied first, so the same words said twice are announced twice.
    status.textContent = '';
    requestAnimationFrame(() => {
      status.textContent = text;
    });
  },
};

function showWho() {
  const me = ctx.me;
  nav.hidden = me === null;
  who.hidden = me === null;
  whoName.textContent = me ? `${me.name} \u00b7 ${me.vaultName || me.vault}${me.group ? ` \u00b7 ${me.group}` : ''}` : '';
}

/**
 * The route named by the address: [name, argument].
 * @returns {[string, string]}
 */
function route() {
  const hash = location.hash;
  const enrol = /^#enrol=([A-Za-z0-9_.~-]+)$/.exec(hash);
  if (enrol) {
    enrolToken = enrol[1] ?? null;
    // The token is a one-time secret: out of the address bar, the history and any bookmark.
    history.replaceState(null, '', `${location.pathname}${location.search}#/enrol`);
    return ['enrol', ''];
  }
  const m = /^#\/([a-z]+)(?:\/(.+))?$/.exec(hash);
  if (!m) return ['pending', ''];
  return [m[1] ?? 'pending', m[2] ? decodeURIComponent(m[2]) : ''];
}

/** @param {{ keepStatus?: boolean }} [o] */
async function render(o = {}) {
  const mine = ++renderCount;
  const [name, arg] = route();
  // A navigation of the approver's own clears what the last step said; a step's own navigation keeps it.
  if (!o.keepStatus && !keepStatusOnce) {
    status.textContent = '';
    status.className = 'status';
  }
  keepStatusOnce = false;
  for (const link of nav.querySelectorAll('a')) {
    const current = link.dataset.nav === (name === 'approvals' ? 'pending' : name);
    if (current) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  main.setAttribute('aria-busy', 'true');
  /** @type {import('./dom.js').Child[]} */
  let nodes;
  try {
    nodes = await viewFor(name, arg);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      ctx.me = null;
      showWho();
      ctx.announce('Your session has ended. Sign in again.', 'error');
      nodes = signInView(ctx, location.hash.startsWith('#/') ? location.hash : '#/pending');
    } else {
      const text = error instanceof Error ? error.message : String(error);
      ctx.announce(text, 'error');
      nodes = [
        h('h1', { tabindex: '-1' }, error instanceof ApiError && error.status === 404 ? 'Not found' : 'Something went wrong'),
        h('p', { class: 'error' }, text),
        h('p', null, h('a', { href: '#/pending' }, 'Back to pending approvals')),
      ];
    }
  }
  if (mine !== renderCount) return;
  main.replaceChildren();
  for (const node of nodes.flat()) if (node instanceof Node) main.append(node);
  main.removeAttribute('aria-busy');
  const title = main.querySelector('h1');
  document.title = `${title?.textContent ?? 'Approvals'} \u00b7 wallet-vault approvals`;
  // Focus to the new heading: a screen reader reads where the approver landed, the keyboard starts there.
  title?.focus();
}

/**
 * @param {string} name
 * @param {string} arg
 * @returns {Promise<import('./dom.js').Child[]>}
 */
async function viewFor(name, arg) {
  if (name === 'enrol') return enrolView(ctx, enrolToken);
  // Read again while an enrolment waits for a governed vault's quorum: the page learns when its votes count.
  if (ctx.me === null || ctx.me.enrolment?.status === 'waiting-for-quorum') {
    ctx.me = await api.session();
    showWho();
  }
  if (ctx.me === null) return signInView(ctx, name === 'signin' ? '#/pending' : location.hash || '#/pending');
  switch (name) {
    case 'approvals':
      return arg ? approvalView(ctx, arg) : pendingView(ctx);
    case 'proposals':
      return arg ? proposalView(ctx, arg) : proposalsView(ctx);
    case 'history':
      return historyView(ctx);
    default:
      return pendingView(ctx);
  }
}

signOut.addEventListener('click', async () => {
  signOut.disabled = true;
  try {
    await api.signOut();
  } catch (error) {
    // Ended already (401) is as good as ended now; anything else is said, and the page still forgets the session.
    if (!(error instanceof ApiError && error.status === 401)) ctx.announce(`The vault did not confirm the sign-out: ${error instanceof Error ? error.message : String(error)}`, 'error');
  } finally {
    signOut.disabled = false;
  }
  ctx.me = null;
  showWho();
  ctx.announce('Signed out.', 'done');
  ctx.go('#/signin');
});

// A link of the bar to the view on screen reloads it (the browser fires no hashchange for the same hash).
nav.addEventListener('click', (event) => {
  const link = event.target instanceof Element ? event.target.closest('a') : null;
  if (link && link.getAttribute('href') === location.hash) {
    event.preventDefault();
    void render();
  }
});

// The skip link jumps to <main> without touching the route.
document.querySelector('[data-skip]')?.addEventListener('click', (event) => {
  event.preventDefault();
  main.focus();
});

window.addEventListener('hashchange', () => void render());
void render();
