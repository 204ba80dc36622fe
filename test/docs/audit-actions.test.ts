import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS } from '../../src/ports/audit-log.port.js';

/**
 * The actions named in the first column of docs/api.md's audit table (every backticked `a.b` in it;
 * a row may name several, and one action several rows).
 */
function documentedActions(): Set<string> {
  const doc = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('## Audit trail'));
  const table = section.slice(section.indexOf('| action |'), section.indexOf('\n\n', section.indexOf('| action |')));
  const actions = new Set<string>();
  for (const row of table.split('\n').slice(2)) {
    const firstCell = row.split('|')[1] ?? '';
    for (const [, name] of firstCell.matchAll(/`([a-z-]+(?:\.[a-z-]+)+)`/g)) actions.add(name!);
  }
  return actions;
}

// Issue 35: the table lists every action the code can write. AUDIT_ACTIONS is that set: assertAuditEvent
// (src/domain/audit-chain.ts) refuses any other before it is chained.
describe("docs/api.md's audit action table", () => {
  it('names exactly the actions of AUDIT_ACTIONS', () => {
    const documented = documentedActions();
    expect([...documented].sort()).toEqual([...AUDIT_ACTIONS].sort());
  });
});
