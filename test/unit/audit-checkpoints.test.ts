import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FixedClock } from '../../adapters/testing/clocks.js';
import { InMemoryAuditLog } from '../../adapters/testing/in-memory.persistence.js';
import { AuditCheckpoints, ScheduledCheckpoints } from '../../src/application/audit/audit-checkpoints.use-case.js';
import { VerifyAuditChain } from '../../src/application/audit/verify-audit-chain.use-case.js';
import { checkpointKeyFrom, checkpointProblem, parseCheckpoint } from '../../src/domain/audit-checkpoint.js';
import type { AuditRecord } from '../../src/ports/audit-log.port.js';

const HOUR = 3_600_000;

function world() {
  const log = new InMemoryAuditLog();
  const clock = new FixedClock(new Date('2026-11-27T00:00:00Z'));
  const key = checkpointKeyFrom(randomBytes(32));
  const checkpoints = new AuditCheckpoints(log, clock, undefined);
  const scheduled = new ScheduledCheckpoints(checkpoints, new VerifyAuditChain(log), clock, key, HOUR);
  const event = (actor = 'operator') => log.append({ action: 'vault.created', at: clock.now(), actor, vaultId: 'v', subject: 'v', details: {} });
  return { log, clock, key, checkpoints, scheduled, event };
}

describe('audit checkpoints', () => {
  it('derives one key per root, deterministically; a signature covers every field', () => {
    const root = randomBytes(32);
    const key = checkpointKeyFrom(root);
    expect(checkpointKeyFrom(Buffer.from(root)).publicKey).toBe(key.publicKey);
    expect(checkpointKeyFrom(randomBytes(32)).publicKey).not.toBe(key.publicKey);
    const signed = key.sign(3, 'ab'.repeat(32), '2026-11-27T00:00:00.000Z');
    expect(checkpointProblem(parseCheckpoint(JSON.stringify(signed)), key.publicKey)).toBeNull();
    for (const edit of [{ seq: 4 }, { hash: 'cd'.repeat(32) }, { at: '2026-11-27T00:00:01.000Z' }]) {
      expect(checkpointProblem({ ...signed, ...edit }, key.publicKey), JSON.stringify(edit)).toMatch(/does not verify/);
    }
  });

  it('the schedule ignores an audit.checkpoint record its key did not sign (a database writer cannot postpone the next)', async () => {
    const w = world();
    await w.event();
    expect(await w.scheduled.runOnce()).toMatchObject({ seq: 1 });
    await w.event();
    // Appended by someone with write access, properly chained, with a checkpoint of another key dated now.
    const forged = checkpointKeyFrom(randomBytes(32)).sign(2, w.log.records.at(-1)!.hash, w.clock.now().toISOString());
    await w.log.append({ action: 'audit.checkpoint', at: w.clock.now(), actor: 'system', vaultId: null, subject: null, details: { checkpoint: JSON.stringify(forged) } });
    w.clock.advance(HOUR);
    expect(await w.scheduled.runOnce(), 'due an hour after the last real one').toMatchObject({ seq: 4, publicKey: w.key.publicKey });
  });

  it('never signs a broken chain; a fresh process finds the last checkpoint in the chain', async () => {
    const w = world();
    await w.event();
    await w.scheduled.runOnce();
    await w.event();
    // Another process (a restart) reads the chain from the start and knows a checkpoint is not due yet.
    const restarted = new ScheduledCheckpoints(w.checkpoints, new VerifyAuditChain(w.log), w.clock, w.key, HOUR);
    expect(await restarted.runOnce()).toBeNull();
    (w.log.records[0] as { actor: string }).actor = 'someone else';
    w.clock.advance(HOUR);
    // A fresh walk finds it and signs nothing.
    const fresh = new ScheduledCheckpoints(w.checkpoints, new VerifyAuditChain(w.log), w.clock, w.key, HOUR);
    await expect(fresh.runOnce()).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/audit chain broken at seq 1/) });
    await expect(w.checkpoints.write(w.key, 'operator')).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(w.log.records.filter((r: AuditRecord) => r.action === 'audit.checkpoint')).toHaveLength(1);
    // The incremental walk reads only what came after the head it verified; what it signs is that head's
    // hash, which commits to the records as they were: the edit behind it shows against that checkpoint.
    const signed = (await restarted.runOnce())!;
    expect(await w.checkpoints.verify(signed, w.key.publicKey)).toMatchObject({ ok: false, brokenSeq: 1 });
  });
});
