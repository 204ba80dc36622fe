// @ts-check
// The views. Each returns the nodes of <main>, its first a single <h1> that the router titles the
// document with and moves the focus to. Data from the vault is only ever put in as text (dom.js).

import { api, ApiError } from './api.js';
import { code, facts, h, table, tableRow } from './dom.js';
import { absolute, formatEther, groupDigits, relative, shortHex } from './format.js';
import { createPasskey, passkeyProblem, passkeysSupported, usePasskey } from './passkey.js';

/**
 * @typedef {import('./api.js').Approver} Approver
 * @typedef {import('./api.js').ApprovalView} ApprovalView
 * @typedef {import('./api.js').ProposalView} ProposalView
 * @typedef {import('./api.js').AuditRecord} AuditRecord
 * @typedef {import('./api.js').Vote} Vote
 * @typedef {import('./dom.js').Child} Child
 * @typedef {{
 *   me: Approver | null,
 *   signedIn(approver: Approver, next?: string): void,
 *   go(hash: string): void,
 *   rerender(): void,
 *   announce(text: string, kind?: 'info' | 'error' | 'done'): void,
 * }} Context
 */

/* ---------- pieces ---------- */

/**
 * A list of cards, or a line saying there are none.
 * @param {string} label @param {HTMLLIElement[]} items @param {string} none
 */
const cards = (label, items, none) => (items.length === 0 ? h('p', { class: 'card empty' }, none) : h('ul', { class: 'cards', 'aria-label': label }, items));

/** A Solidity type: monospace, broken only where it has to be. @param {string} type */
const typeName = (type) => h('code', { class: 'type' }, type);

/** @param {string} iso */
const time = (iso) => h('time', { datetime: iso, title: absolute(iso) }, relative(iso));

/** @param {string} iso */
const when = (iso) => [time(iso), ' ', h('span', { class: 'muted' }, `(${absolute(iso)})`)];

/** @param {string} status */
const badge = (status) => h('span', { class: `badge badge-${status.replace(/[^a-z-]/g, '')}` }, status);

/** @param {{ address: string | null, name: string | null } | null | undefined} named */
const namedAddress = (named) => {
  if (!named || (named.address === null && named.name === null)) return null;
  if (named.address === null) return h('strong', null, named.name);
  return named.name ? [h('strong', null, named.name), ' ', code(named.address)] : code(named.address);
};

/**
 * A key as people read it: its passkey's name, and where the operator labelled the key the label
 * with the id beside it (a label is the operator's word; the id is what identifies the key).
 * @param {{ id: string, name: string | null, label?: string | null }} k
 */
const keyText = (k) => (k.label ? `${k.name ? `${k.name} \u00b7 ` : ''}${k.label} (${k.id})` : k.name || k.id);
/** The same, as markup: the name and label in bold, the id muted beside them. @param {{ id: string, name: string | null, label?: string | null }} k */
const keyNamed = (k) => {
  const shown = [k.name, k.label].filter(Boolean).join(' \u00b7 ');
  return [h('strong', null, shown || k.id), shown ? [' ', h('span', { class: 'muted' }, k.id)] : null];
};

/** @param {{ address: string | null, name: string | null, exported?: string }} w */
const walletShort = (w) =>
  (w.address === null ? w.name ?? 'unknown' : w.name ? `${w.name} (${shortHex(w.address)})` : shortHex(w.address)) + (w.exported ? ` \u00b7 key exported ${w.exported}` : '');

/**
 * A wallet whose key left the vault (keys export): said beside it wherever it is shown, since its key is
 * known outside the vault for ever. @param {{ address: string | null, name: string | null, exported?: string }} w
 */
const exportedNote = (w) => (w.exported ? warning('Key exported', `This wallet\u2019s key (or its vault\u2019s HD seed) was exported on ${w.exported}: whoever holds the export can sign for it outside the vault.`) : null);

/**
 * The key exports a proposal allows (state.exports entries it adds), as lines: what leaves, to which key.
 * @param {{ state?: unknown, diff?: unknown }} p
 */
const proposedExports = (p) => {
  const diff = /** @type {{ exports?: { added?: string[] } } | undefined} */ (p.diff);
  const state = /** @type {{ exports?: { id: string, kind: string, wallet: string | null, recipient: string }[] } | undefined} */ (p.state);
  const added = new Set(diff?.exports?.added ?? []);
  const entries = (state?.exports ?? []).filter((e) => added.has(e.id));
  if (entries.length === 0) return null;
  return section(
    'Key exports',
    h('ul', { class: 'diff' }, entries.map((e) => h('li', null, e.kind === 'hd-seed' ? 'the vault\u2019s HD seed (every derived wallet\u2019s key)' : ['the private key of ', code(e.wallet ?? '')], ', encrypted to recipient key ', code(e.recipient)))),
  );
};

/** @param {{ name: string | null, id: string | number | null }} c */
const chainText = (c) => (c.name ?? '') + (c.id !== null && c.id !== undefined ? `${c.name ? ' ' : ''}(chain id ${c.id})` : '') || 'unknown';

/** @param {string | null} wei */
const amount = (wei) => (wei === null || wei === undefined ? null : [h('strong', null, `${formatEther(wei)} ETH`), ' ', h('span', { class: 'muted' }, `${/^\d+$/.test(wei) ? groupDigits(wei) : wei} wei`)]);

/**
 * An argument's or field's value: text as is, anything structured as indented JSON.
 * @param {unknown} value
 */
const value = (value) =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint'
    ? code(String(value))
    : h('pre', { class: 'mono' }, JSON.stringify(value, null, 2));

/**
 * An argument's or field's value with what the operator's policy says beside it: an address's name
 * (`addressNames`, `contractNames`) in bold before it, a token amount in the token's units with the base
 * units as signed (`15 000 TUSD (15000000000)`). Without either, `value`.
 * @param {{ value: unknown, addressName?: string, tokenAmount?: import('./api.js').TokenAmount }} x
 */
const shownValue = (x) =>
  x.tokenAmount
    ? [h('strong', null, `${x.tokenAmount.units} ${x.tokenAmount.symbol}`), ' ', h('span', { class: 'muted' }, `(${String(x.value)})`)]
    : x.addressName
      ? [h('strong', null, x.addressName), ' ', value(x.value)]
      : value(x.value);

/** The same for a list's one line: `15 000 TUSD`, `Payroll (Acme GmbH)`; else the value as is. @param {{ value: unknown, addressName?: string, tokenAmount?: import('./api.js').TokenAmount }} x */
const shortValue = (x) => (x.tokenAmount ? `${x.tokenAmount.units} ${x.tokenAmount.symbol}` : x.addressName ?? x.value);

/**
 * A value of the typed-data domain or of an authorization: the request's contract (verifyingContract, the
 * delegate) with the operator's name beside it, as in the Request section; anything else as `value`.
 * @param {ApprovalView} a @param {unknown} v
 */
const contractOrValue = (a, v) =>
  a.contract && a.contract.name && typeof v === 'string' && v.toLowerCase() === a.contract.address.toLowerCase() ? namedAddress(a.contract) : value(v);

/** What an approval asks for, in a few words (a list item's heading). @param {ApprovalView} a */
function summary(a) {
  const target = a.contract ? a.contract.name ?? shortHex(a.contract.address) : null;
  switch (a.kind) {
    case 'call':
      return `${a.function?.name ?? 'Call'}${target ? ` on ${target}` : ''}`;
    case 'transaction':
      return a.function ? `Transaction: ${a.function.name}${target ? ` on ${target}` : ''}` : `Transaction${target ? ` to ${target}` : ''}`;
    case 'typed-data':
      return `Typed data: ${a.typedData?.primaryType ?? 'message'}`;
    case 'message':
      return 'Message';
    case 'authorization':
      return `Authorization${target ? ` of ${target}` : ''}`;
    default:
      return a.kind;
  }
}

/** @param {{ required: number, votes: Vote[] }} a */
const tally = (a) => {
  const approvals = a.votes.filter((v) => v.decision === 'approve').length;
  return `${approvals} of ${a.required} approval${a.required === 1 ? '' : 's'}`;
};

/** @param {Vote[]} votes @param {string} caption */
function votesTable(votes, caption) {
  if (votes.length === 0) return h('p', { class: 'muted' }, 'No votes yet.');
  return table({
    caption,
    hideCaption: true,
    head: ['Approver', 'Decision', 'When', 'Signed with'],
    rows: votes.map((v) => [keyText(v.approver), badge(v.decision), time(v.at), v.kind === 'passkey' ? 'passkey' : v.kind === 'address' ? 'address key' : 'no signature']),
  });
}

/** `submissionHash` → `Submission hash`: a field name of the API as a label. @param {string} key */
const words = (key) => {
  const spaced = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
};

/**
 * The audit records behind a decision, oldest first: what happened, when, by whom, and each detail by name
 * (a list rather than a table: details are many and long, and must read on a phone too).
 * @param {AuditRecord[] | undefined} records
 */
function auditList(records) {
  if (!records || records.length === 0) return h('p', { class: 'muted' }, 'No audit records.');
  return h(
    'ol',
    { class: 'audit' },
    records.map((r) => {
      const at = typeof r.at === 'string' ? r.at : typeof r.timestamp === 'string' ? r.timestamp : null;
      const details = r.details && typeof r.details === 'object' ? Object.entries(/** @type {Record<string, unknown>} */ (r.details)) : [];
      return h(
        'li',
        null,
        h('p', { class: 'audit-head' }, code(String(r.action ?? '')), at ? [' ', time(at)] : null, r.actor ? [' by ', code(String(r.actor))] : null),
        details.length > 0 ? facts(details.map(([k, v]) => [words(k), value(v)]), 'facts compact') : null,
      );
    }),
  );
}

/**
 * A result (signature, submission hash…) field by field; `short`: its text fields only.
 * @param {Record<string, unknown> | null} result @param {{ short?: boolean }} [o]
 */
const resultFacts = (result, o = {}) =>
  result === null
    ? h('p', { class: 'muted' }, 'Nothing was signed.')
    : facts(Object.entries(result).filter(([, v]) => !o.short || typeof v === 'string').map(([k, v]) => [words(k), value(v)]));


/**
 * A section with a heading.
 * @param {string} title
 * @param {Child[]} children
 */
const section = (title, ...children) => {
  const id = `s-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return h('section', { 'aria-labelledby': id }, h('h2', { id }, title), children);
};

/** @param {unknown} error */
function problemText(error) {
  const passkey = passkeyProblem(error);
  if (passkey) return passkey;
  if (error instanceof ApiError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs a step behind a button: disables it, says what is happening, shows what went wrong beside it.
 * @param {Context} ctx
 * @param {HTMLButtonElement} button
 * @param {HTMLElement} errorBox
 * @param {string} busyText
 * @param {() => Promise<void>} step
 * @param {{ signedOutMeansSession?: boolean }} [o] false where a 401 is about an invite or a passkey, not a session
 */
async function busy(ctx, button, errorBox, busyText, step, o = {}) {
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  errorBox.replaceChildren();
  ctx.announce(busyText);
  try {
    await step();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401 && o.signedOutMeansSession !== false) {
      ctx.announce('Your session has ended. Sign in again.', 'error');
      ctx.go('#/signin');
      return;
    }
    const text = problemText(error);
    errorBox.replaceChildren(h('p', null, text));
    ctx.announce(text, 'error');
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
  }
}

const errorBox = () => h('div', { class: 'error', id: `error-${Math.random().toString(36).slice(2)}` });

const noPasskeys = () =>
  passkeysSupported() ? null : h('p', { class: 'error' }, 'This browser cannot use passkeys here. Open the console at the vault\u2019s public address (HTTPS) in a current browser.');

/* ---------- enrol and sign in ---------- */

/** @param {Context} ctx @param {string | null} token */
export function enrolView(ctx, token) {
  if (!token) {
    return [
      h('h1', { tabindex: '-1' }, 'Invitation link incomplete'),
      h('p', null, 'Open the whole link you were sent. It ends with ', code('#enrol='), ' and a long code, and works once.'),
      h('p', null, h('a', { href: '#/signin' }, 'Already enrolled? Sign in')),
    ];
  }
  const err = errorBox();
  const name = h('input', { id: 'enrol-name', name: 'name', type: 'text', required: true, autocomplete: 'name', maxlength: '100', 'aria-describedby': `enrol-name-hint ${err.id}` });
  const submit = h('button', { type: 'submit', class: 'button primary' }, 'Create passkey');
  const form = h(
    'form',
    { class: 'card form', novalidate: true },
    h('div', { class: 'field' }, h('label', { for: 'enrol-name' }, 'Your name'), h('p', { id: 'enrol-name-hint', class: 'hint' }, 'Other approvers and the audit trail show it beside your votes.'), name),
    submit,
    err,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const chosen = name.value.trim();
    if (!chosen) {
      name.setAttribute('aria-invalid', 'true');
      err.replaceChildren(h('p', null, 'Enter your name.'));
      ctx.announce('Enter your name.', 'error');
      name.focus();
      return;
    }
    name.removeAttribute('aria-invalid');
    void busy(ctx, submit, err, 'Follow your browser\u2019s prompt to create the passkey…', async () => {
      const { options, vault, group } = await api.enrolOptions(token);
      const response = await createPasskey(options);
      const { approver } = await api.enrol({ token, name: chosen, response });
      const waits = approver.enrolment?.status === 'waiting-for-quorum' ? ' Your votes count once the vault\u2019s governance approvers sign your enrolment.' : '';
      ctx.announce(`Passkey created. You approve for vault ${approver.vaultName || approver.vault || vault}${(approver.group ?? group) ? `, group ${approver.group ?? group}` : ''}.${waits}`, 'done');
      ctx.signedIn(approver, '#/pending');
    }, { signedOutMeansSession: false });
  });
  return [
    h('h1', { tabindex: '-1' }, 'Create your passkey'),
    h('p', { class: 'lead' }, 'You were invited to approve signing requests of a vault. A passkey on this device (or your phone) signs each of your decisions: there is no password.'),
    noPasskeys(),
    form,
  ];
}

/** @param {Context} ctx @param {string} next where to go after signing in */
export function signInView(ctx, next) {
  const err = errorBox();
  const button = h('button', { type: 'button', class: 'button primary' }, 'Sign in with passkey');
  button.addEventListener('click', () => {
    void busy(ctx, button, err, 'Follow your browser\u2019s passkey prompt…', async () => {
      const { options } = await api.sessionOptions();
      const response = await usePasskey(options);
      const { approver } = await api.signIn(response);
      ctx.announce(`Signed in as ${approver.name}.`, 'done');
      ctx.signedIn(approver, next);
    }, { signedOutMeansSession: false });
  });
  return [
    h('h1', { tabindex: '-1' }, 'Sign in'),
    h('p', { class: 'lead' }, 'Use the passkey you created when you enrolled as an approver.'),
    noPasskeys(),
    h('div', { class: 'card form' }, button, err),
    h('p', { class: 'muted' }, 'Not enrolled yet? Ask an operator of the vault for an invitation link.'),
  ];
}

/* ---------- approvals ---------- */

/**
 * A heading of level 2 or deeper (a card in a list under the page's h1, or under a section's h2).
 * @param {number} level @param {Child[]} children
 */
const heading = (level, ...children) => h(/** @type {'h2' | 'h3' | 'h4'} */ (`h${Math.min(level, 4)}`), null, children);

/** @param {ApprovalView} a @param {number} [level] its heading's @param {Child[]} more */
function approvalCard(a, level = 2, ...more) {
  return h(
    'li',
    null,
    h(
      'article',
      { class: 'card item' },
      heading(level, h('a', { href: `#/approvals/${encodeURIComponent(a.id)}` }, summary(a))),
      facts(
        [
          ['Status', badge(a.status)],
          ['Wallet', walletShort(a.wallet)],
          ['Chain', chainText(a.chain)],
          ['Arguments', a.function && a.function.args.length > 0 ? inShort(a.function.args.map((arg) => [arg.name, shortValue(arg)])) : null],
          ['Fields', a.typedData ? inShort(a.typedData.fields.map((f) => [f.path, shortValue(f)]), fieldCount(a)) : null],
          ['Warning', a.call?.uniqBinding?.warning ?? null],
          ['Not released', blockedText(a)],
          ['Value', a.value !== null && a.value !== '0' ? `${formatEther(a.value)} ETH` : null],
          ['Requested by', keyText(a.requester)],
          ['Requested', time(a.created)],
          [a.status === 'pending' ? 'Expires' : 'Expired', a.status === 'pending' || a.status === 'expired' ? time(a.expires) : null],
          ['Votes', tally(a)],
        ],
        'facts compact',
      ),
      more,
    ),
  );
}

/**
 * Named values on one line for a list (`to 0x7099…79C8, amount 20000`): long hex shortened, structures
 * elided, at most four; the detail shows them whole. `total`: how many there are, when `pairs` are the first.
 * @param {[string, unknown][]} pairs @param {number} [total]
 */
function inShort(pairs, total = pairs.length) {
  /** @param {unknown} v */
  const brief = (v) => (typeof v === 'string' ? (/^0x[0-9a-fA-F]+$/.test(v) ? shortHex(v) : v.length > 40 ? `${v.slice(0, 39)}…` : v) : typeof v === 'object' && v !== null ? '…' : String(v));
  const shown = pairs.slice(0, 4).map(([name, v]) => `${name} ${brief(v)}`);
  return `${shown.join(', ')}${total > shown.length ? `, and ${total - shown.length} more` : ''}`;
}

/** How many fields typed data's message has (the view carries the first page of them). @param {ApprovalView} a */
const fieldCount = (a) => a.typedData?.fieldCount ?? a.typedData?.fields.length ?? 0;

/** A number and a noun: `1 field`, `6 fields`. @param {number} n @param {string} noun */
const counted = (n, noun) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** @param {Context} ctx */
export async function pendingView(ctx) {
  const { approvals } = await api.approvals('pending');
  return [
    h('h1', { tabindex: '-1' }, 'Pending approvals'),
    h('p', { class: 'lead' }, `Vault ${ctx.me?.vaultName || ctx.me?.vault || ''}${ctx.me?.group ? `, group ${ctx.me.group}` : ''}: signing requests held for approvers.`),
    waitingEnrolment(ctx.me),
    cards('Pending approvals', approvals.map((a) => approvalCard(a)), 'Nothing is waiting for a decision.'),
  ];
}

/**
 * On a governed vault, until its governance approvers sign the proposal listing this approver: what it waits
 * for, and a link to that proposal (docs/console.md, "Governed vaults"); else nothing.
 * @param {Approver | null} me
 */
function waitingEnrolment(me) {
  if (me?.enrolment?.status !== 'waiting-for-quorum') return null;
  const proposal = me.enrolment.proposal;
  return h(
    'p',
    { class: 'card' },
    'This vault is governed: your votes count once its governance approvers have signed ',
    proposal ? h('a', { href: `#/proposals/${encodeURIComponent(proposal)}` }, 'the proposal that lists your passkey') : 'a proposal listing your passkey (none is pending: ask an operator)',
    '.',
  );
}

/**
 * Why this approver may not vote on it, or null when they may.
 * @param {Approver | null} me @param {ApprovalView} a
 */
function cannotVote(me, a) {
  if (a.status !== 'pending') return `This request is ${a.status}.`;
  if (!me) return 'Sign in to vote.';
  if (me.enrolment?.status === 'waiting-for-quorum') return 'Your votes count once the vault\u2019s governance approvers have signed your enrolment.';
  if (a.requester.id === me.id || a.requester.id === `api-key:${me.id}`) return 'You made this request; another approver must decide it.';
  const mine = a.votes.find((v) => v.approver.id === me.id);
  if (mine) return `You voted ${mine.decision} ${relative(mine.at)}.`;
  if (a.group && a.group !== me.group) return `Only approvers of group ${a.group} decide this request.`;
  return null;
}

/**
 * A Sign's uniq with what the policy pins it to: the signature binds the uniq, not the contract's address.
 * @param {ApprovalView} a
 */
function uniqFact(a) {
  if (!a.call) return null;
  if (a.call.uniq === null) return h('span', { class: 'muted' }, 'read from the contract when it is released');
  const pinned = a.call.uniqBinding?.pinnedFor ?? [];
  return [
    code(a.call.uniq),
    pinned.length === 0 ? null : h('span', { class: 'muted' }, [' pinned for ', pinned.map((c, i) => [i > 0 ? ', ' : '', namedAddress(c)])]),
  ];
}

/** A warning approvers must read: a box of its own, named for screen readers. @param {string} title @param {string} text */
const warning = (title, text) => h('div', { class: 'warning', role: 'note', 'aria-label': title }, h('p', null, h('strong', null, `${title}: `), text));

/** What refused the release of a request with its quorum, in the approvers' words (ApprovalView.blockedBy's reason). */
const BLOCKED_REASONS = {
  limit: 'a limit of the policy is reached',
  freeze: 'the vault is frozen',
  governance: 'the vault\u2019s governance does not verify',
  simulation: 'its simulation reverts',
  sealed: 'the vault is sealed',
};
/** `Approved, but not released: a limit of the policy is reached`, with the refusal's message; the next approve tries again. @param {ApprovalView} a */
const blockedText = (a) => (a.blockedBy ? `${BLOCKED_REASONS[a.blockedBy.reason] ?? a.blockedBy.reason}. ${a.blockedBy.message}` : null);
/** @param {ApprovalView} a */
const blockedNote = (a) => {
  const text = blockedText(a);
  return text === null ? null : warning('Approved, but not released', `${text} (${a.blockedBy?.code}, ${a.blockedBy?.at}). An approver\u2019s approve tries the release again.`);
};

/**
 * The typed data's fields: the first page, and when there are more, the line saying how many and the button
 * that shows them (every page, in turn); `opened` is called once every field is on screen.
 * @param {Context} ctx @param {ApprovalView} a @param {() => void} opened
 */
function typedDataFields(ctx, a, opened) {
  const td = /** @type {NonNullable<ApprovalView['typedData']>} */ (a.typedData);
  const fields = table({ caption: `Fields of ${td.primaryType}`, head: ['Field', 'Type', 'Value'], rows: td.fields.map((f) => [f.path, typeName(f.type), shownValue(f)]) });
  const total = fieldCount(a);
  const hidden = total - td.fields.length;
  if (hidden <= 0) return [fields];
  const body = /** @type {HTMLTableSectionElement} */ (fields.querySelector('tbody'));
  const err = errorBox();
  const note = h('p', { id: `more-${a.id}`, class: 'more', tabindex: '-1' }, h('strong', null, `${counted(hidden, 'more field')}`), ` of ${total} are not shown yet. Show them before you approve: what is signed is every field.`);
  const more = h('button', { type: 'button', class: 'button quiet', 'aria-describedby': note.id }, `Show ${counted(hidden, 'more field')}`);
  more.addEventListener('click', () => {
    void busy(ctx, more, err, `Loading ${counted(hidden, 'more field')}…`, async () => {
      let offset = body.rows.length;
      while (offset < total) {
        const page = await api.approvalFields(a.id, offset);
        if (page.fields.length === 0) throw new Error(`The vault sent no fields from field ${offset + 1} of ${total}; reload the page.`);
        for (const f of page.fields) body.append(tableRow([f.path, typeName(f.type), shownValue(f)]));
        offset += page.fields.length;
      }
      more.remove();
      note.replaceChildren(`All ${counted(total, 'field')} are shown.`);
      note.focus();
      ctx.announce(`All ${counted(total, 'field')} of ${td.primaryType} are shown.`, 'done');
      opened();
    });
  });
  return [fields, note, h('div', { class: 'actions' }, more), err];
}

/**
 * Every field of the request: `opened` is called once the approver has everything on screen (at once,
 * unless typed data has more fields than a page).
 * @param {Context} ctx @param {ApprovalView} a @param {() => void} opened
 * @returns {{ sections: Child[], complete: boolean }}
 */
function requestSections(ctx, a, opened) {
  const binding = a.call?.uniqBinding;
  /** @type {Child[]} */
  const out = [
    section(
      'Request',
      facts([
        ['Vault', a.vaultName ? [h('strong', null, a.vaultName), ' ', h('span', { class: 'muted' }, a.vault)] : a.vault],
        ['Wallet', namedAddress(a.wallet)],
        ['HD path', a.wallet.derivationPath ? [code(a.wallet.derivationPath), ' ', h('span', { class: 'muted' }, 'derived from the vault\u2019s HD seed')] : null],
        ['Chain', chainText(a.chain)],
        ['Kind', a.kind],
        ['Contract', namedAddress(a.contract)],
        ['Sender', a.call ? code(a.call.sender) : null],
        ['Uniq', uniqFact(a)],
        ['Signer', a.call ? (a.call.signer === null ? h('span', { class: 'muted' }, 'read from the contract when it is released') : code(a.call.signer)) : null],
        ['Value', amount(a.value)],
        ['Fee (at most)', amount(a.fee)],
      ]),
      exportedNote(a.wallet),
      binding?.warning ? warning('Not the contract named', binding.warning) : null,
    ),
  ];
  if (a.function) {
    out.push(
      section(
        'Function',
        h('p', null, code(a.function.signature)),
        a.function.args.length === 0
          ? h('p', { class: 'muted' }, 'No arguments.')
          : table({ caption: `Arguments of ${a.function.name}`, head: ['Argument', 'Type', 'Value'], rows: a.function.args.map((arg) => [arg.name, typeName(arg.type), shownValue(arg)]) }),
      ),
    );
  }
  if (a.transaction) {
    const tx = a.transaction;
    out.push(
      section(
        'Calldata',
        tx.calldata === '0x'
          ? h('p', null, 'None: the transaction calls no function.')
          : [
              a.function ? null : h('p', null, 'No function the operator named decodes it: read it as the raw bytes that are signed.'),
              facts([
                ['Selector', tx.selector ? code(tx.selector) : h('span', null, 'none (fewer than 4 bytes)')],
                ['Bytes', `${(tx.calldata.length - 2) / 2}`],
                // A region of its own that scrolls: focusable, so a keyboard can scroll it too.
                ['Calldata', h('pre', { class: 'mono calldata', tabindex: '0', role: 'region', 'aria-label': 'Calldata (hex)' }, tx.calldata)],
              ]),
            ],
      ),
      section('Transaction fields', facts(Object.entries(tx.fields).map(([k, v]) => [k, k === 'to' ? contractOrValue(a, v) : value(v)]))),
    );
  }
  let complete = true;
  if (a.typedData) {
    complete = fieldCount(a) <= a.typedData.fields.length;
    out.push(
      section(
        `Typed data: ${a.typedData.primaryType}`,
        h('h3', null, 'Domain'),
        facts(Object.entries(a.typedData.domain ?? {}).map(([k, v]) => [k, k === 'verifyingContract' ? contractOrValue(a, v) : value(v)])),
        typedDataFields(ctx, a, opened),
      ),
    );
  }
  if (a.authorization) out.push(section('Authorization (EIP-7702)', facts(Object.entries(a.authorization).map(([k, v]) => [k, k === 'address' ? contractOrValue(a, v) : value(v)]))));
  if (a.message !== null && a.message !== undefined) out.push(section('Message', h('pre', { class: 'mono message' }, a.message)));
  if (a.simulation !== null && a.simulation !== undefined) out.push(section('Simulation', simulationFacts(a.simulation)));
  return { sections: out, complete };
}

/**
 * What the simulation found: its chain and method, the native outflow in ETH and wei, each token's outflow
 * in its units where the policy names the token (`tokens`), else in base units.
 * @param {NonNullable<ApprovalView['simulation']>} s
 */
function simulationFacts(s) {
  const units = s.tokenOutflowUnits ?? {};
  return facts([
    ['Chain', s.chain],
    ['Method', code(s.method)],
    ['Native outflow', s.nativeOutflow === undefined ? null : amount(s.nativeOutflow)],
    ...Object.entries(s.tokenOutflow ?? {}).map(([token, base]) => {
      const shown = units[token];
      return /** @type {[string, Child]} */ ([
        `Outflow of ${shown ? shown.symbol : shortHex(token)}`,
        shown ? [h('strong', null, `${shown.units} ${shown.symbol}`), ' ', h('span', { class: 'muted' }, `(${base})`), ' ', code(token)] : [code(base), ' ', code(token)],
      ]);
    }),
  ]);
}

/** @param {Context} ctx @param {string} id */
export async function approvalView(ctx, id) {
  const { approval: a, audit } = await api.approval(id);
  const reason = cannotVote(ctx.me, a);
  const err = errorBox();
  /** @type {() => void} */
  let opened = () => {};
  const request = requestSections(ctx, a, () => opened());
  /** @type {Child} */
  let actions = h('p', { class: 'muted' }, reason);
  if (reason === null) {
    const approve = h('button', { type: 'button', class: 'button primary' }, 'Approve with passkey');
    // Approving signs every field: it waits until every field is on screen. Rejecting signs nothing, so it never waits.
    const unread = h('p', { id: `unread-${a.id}`, class: 'hint' }, 'Approving is possible once every field of the request is shown (above).');
    if (!request.complete) {
      approve.disabled = true;
      approve.setAttribute('aria-describedby', unread.id);
      opened = () => {
        approve.disabled = false;
        approve.removeAttribute('aria-describedby');
        unread.remove();
      };
    }
    const reject = h('button', { type: 'button', class: 'button danger' }, 'Reject with passkey');
    /** @param {'approve' | 'reject'} decision @param {HTMLButtonElement} button */
    const decide = (decision, button) =>
      busy(ctx, button, err, `Follow your browser\u2019s passkey prompt to ${decision}…`, async () => {
        const { options } = await api.decisionOptions(a.id, decision);
        const response = await usePasskey(options);
        const { approval } = await api.decide(a.id, decision, response);
        const done =
          approval.status === 'approved'
            ? 'Approved. The quorum is reached and the signature is released.'
            : approval.status === 'rejected'
              ? 'Rejected. Nothing will be signed.'
              : `Your ${decision === 'approve' ? 'approval' : 'rejection'} is recorded: ${tally(approval)}.`;
        ctx.announce(done, 'done');
        ctx.rerender();
      });
    approve.addEventListener('click', () => void decide('approve', approve));
    reject.addEventListener('click', () => void decide('reject', reject));
    actions = [h('p', null, 'Your passkey signs your decision over this exact request.'), request.complete ? null : unread, h('div', { class: 'actions' }, approve, reject), err];
  }
  return [
    h('p', { class: 'crumbs' }, h('a', { href: a.status === 'pending' ? '#/pending' : '#/history' }, a.status === 'pending' ? '\u2190 Pending approvals' : '\u2190 History')),
    h('h1', { tabindex: '-1' }, summary(a)),
    h('p', { class: 'lead' }, badge(a.status), ' ', tally(a), a.group ? ` from group ${a.group}` : ''),
    blockedNote(a),
    ...request.sections,
    section(
      'Decision',
      facts([
        ['Requested by', keyNamed(a.requester)],
        ['Requested', when(a.created)],
        [a.status === 'pending' ? 'Expires' : 'Expiry', when(a.expires)],
        ['Held by rule', a.rule === null ? 'none named' : [code(a.rule), a.ruleDescription ? `: ${a.ruleDescription}` : '']],
        ['Group', a.group],
        ['Needs', `${a.required} approval${a.required === 1 ? '' : 's'}`],
        ['Decided', a.decided ? when(a.decided) : null],
        ['Request hash', a.requestHash ? code(a.requestHash) : null],
      ]),
      h('h3', null, 'Votes so far'),
      votesTable(a.votes, 'Votes'),
      actions,
    ),
    a.status === 'pending' ? null : section('Result', resultFacts(a.result)),
    section('Audit records', auditList(audit)),
  ];
}

/* ---------- proposals ---------- */

/**
 * A proposal's diff as lines ("policy · added: rule r2", "governance · required: 2 → 3"), whatever its
 * depth; empty lists are no change and left out.
 * @param {unknown} diff
 * @param {string} [path]
 * @returns {string[]}
 */
export function diffLines(diff, path = '') {
  if (diff === null || diff === undefined) return [];
  // A changed entry's fields, old and new: one line each (`policy · rule payouts · maxValue: "1" → "2"`).
  if (Array.isArray(diff) && path.endsWith('fields') && diff.every((x) => x && typeof x === 'object' && 'entry' in x && 'field' in x)) {
    const base = path.slice(0, -'fields'.length).replace(/ \u00b7 $/, '');
    return diff.map((x) => `${base ? `${base} \u00b7 ` : ''}${String(x.entry)} \u00b7 ${String(x.field)}: ${JSON.stringify(x.from)} \u2192 ${JSON.stringify(x.to)}`);
  }
  if (Array.isArray(diff)) return diff.length === 0 ? [] : [`${path}: ${diff.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(', ')}`];
  if (typeof diff === 'object') {
    const o = /** @type {Record<string, unknown>} */ (diff);
    if ('from' in o && 'to' in o && Object.keys(o).length === 2) return [`${path}: ${String(o.from)} \u2192 ${String(o.to)}`];
    return Object.entries(o).flatMap(([k, v]) => diffLines(v, path ? `${path} \u00b7 ${k}` : k));
  }
  return [`${path}: ${String(diff)}`];
}

/** @param {unknown} diff */
const diffList = (diff) => {
  const lines = diffLines(diff);
  return lines.length === 0 ? h('p', { class: 'muted' }, 'No change listed.') : h('ul', { class: 'diff' }, lines.map((l) => h('li', null, l)));
};

/** @param {unknown} who */
const person = (who) =>
  who && typeof who === 'object' ? String(/** @type {any} */ (who).name ?? /** @type {any} */ (who).id ?? JSON.stringify(who)) : who === null || who === undefined ? '' : String(who);

/** @param {ProposalView} p */
const proposalTally = (p) => `${p.votes?.filter((v) => v.decision === 'approve').length ?? p.approvals?.length ?? 0} of ${p.required ?? '?'} signatures`;

/** @param {ProposalView} p @param {number} [level] its heading's */
function proposalCard(p, level = 2) {
  return h(
    'li',
    null,
    h(
      'article',
      { class: 'card item' },
      heading(level, h('a', { href: `#/proposals/${encodeURIComponent(p.id)}` }, `Proposal ${shortHex(p.id)}`)),
      facts(
        [
          ['Status', badge(p.status)],
          ['Proposed by', p.creator === undefined ? null : person(p.creator)],
          ['Proposed', time(p.created)],
          ['Signatures', proposalTally(p)],
        ],
        'facts compact',
      ),
      heading(level + 1, 'Changes'),
      diffList(p.diff),
    ),
  );
}

/** @param {Context} _ctx */
export async function proposalsView(_ctx) {
  const { proposals } = await api.proposals('pending');
  return [
    h('h1', { tabindex: '-1' }, 'Pending proposals'),
    h('p', { class: 'lead' }, 'Changes to the vault\u2019s policy, approvers and keys, in force once the vault\u2019s governance approvers sign them (', code('wallet-vault governance proposals approve'), ').'),
    cards('Pending proposals', proposals.map((p) => proposalCard(p)), 'No proposal is waiting.'),
  ];
}

/** @param {Context} _ctx @param {string} id */
export async function proposalView(_ctx, id) {
  const { proposal: p, audit } = await api.proposal(id);
  /** @type {[string, Child][]} */
  const rows = [
    ['Status', badge(p.status)],
    ['Proposed by', p.creator === undefined ? null : person(p.creator)],
    ['Proposed', when(p.created)],
    ['Decided', p.decided ? when(p.decided) : null],
    ['In force from', p.effectiveAt ? when(p.effectiveAt) : null],
    ['Expires', p.expires ? when(p.expires) : null],
    ['Signatures', proposalTally(p)],
    ['Rejected by', p.rejectedBy ? person(p.rejectedBy) : null],
    ['Document hash', p.documentHash ? code(p.documentHash) : null],
  ];
  return [
    h('p', { class: 'crumbs' }, h('a', { href: p.status === 'pending' ? '#/proposals' : '#/history' }, p.status === 'pending' ? '\u2190 Pending proposals' : '\u2190 History')),
    h('h1', { tabindex: '-1' }, `Proposal ${shortHex(p.id)}`),
    section('Proposal', facts(rows)),
    section('Changes', diffList(p.diff)),
    proposedExports(p),
    section('Votes', p.votes ? votesTable(p.votes, 'Votes') : h('p', null, (p.approvals ?? []).length === 0 ? 'No signatures yet.' : `Signed by ${(p.approvals ?? []).map(person).join(', ')}.`)),
    section('Audit records', auditList(audit)),
  ];
}

/* ---------- history ---------- */

/** @param {Context} _ctx */
export async function historyView(_ctx) {
  const { approvals, proposals } = await api.history();
  return [
    h('h1', { tabindex: '-1' }, 'History'),
    h('p', { class: 'lead' }, 'Decided approvals and proposals, with their votes and what came of them. Open one for its audit records.'),
    section(
      'Decided approvals',
      cards(
        'Decided approvals',
        // The card says what came of it in short (a signature, a hash); the detail has the rest.
        approvals.map((a) => approvalCard(a, 3, heading(4, 'Votes'), votesTable(a.votes, 'Votes'), heading(4, 'Result'), resultFacts(a.result, { short: true }))),
        'None yet.',
      ),
    ),
    section('Decided proposals', cards('Decided proposals', proposals.map((p) => proposalCard(p, 3)), 'None yet.')),
  ];
}
