import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresPersistence } from '../../adapters/persistence/postgres/index.js';
import { sqlitePersistence } from '../../adapters/persistence/sqlite/index.js';
import { aVault, anAuditEvent } from '../../adapters/testing/fixtures.js';
import type { AuditAction } from '../../src/ports/audit-log.port.js';
import type { Persistence } from '../../src/ports/persistence.port.js';
import type { WebhookOutbox } from '../../src/ports/webhook-outbox.port.js';
import { createTestDatabase, POSTGRES_AVAILABLE } from '../support/postgres.js';

const DIALECTS: { name: string; open: () => Promise<{ persistence: Persistence; done: () => Promise<void> }> }[] = [
  {
    name: 'SQLite',
    open: async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-outbox-'));
      return { persistence: await sqlitePersistence({ path: path.join(dir, 'vault.db') }), done: () => rm(dir, { recursive: true, force: true }) };
    },
  },
  ...(POSTGRES_AVAILABLE
    ? [
        {
          name: 'PostgreSQL',
          open: async () => {
            const db = await createTestDatabase();
            return { persistence: await postgresPersistence({ connectionString: db.url }), done: () => db.drop() };
          },
        },
      ]
    : []),
];

/** The SQL outbox (written once over both dialects): cursors, the next event per endpoint, giving up, the stored key. */
describe.each(DIALECTS)('the webhook outbox on $name', ({ open }) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  const world = async () => {
    const { persistence, done } = await open();
    cleanups.push(done, () => persistence.close());
    const outbox = persistence.webhooks as WebhookOutbox;
    const [a, b] = [aVault(), aVault()];
    for (const v of [a, b]) {
      await persistence.repository.ensureAccount(v.accountId, new Date());
      await persistence.repository.insertVault(v);
    }
    const append = async (vaultId: string, action: AuditAction) => {
      await persistence.auditLog.append(anAuditEvent({ vaultId, action }));
      return (await persistence.auditLog.list({ afterSeq: 0, limit: 10_000 })).at(-1)!.seq;
    };
    return { persistence, outbox, a, b, append };
  };

  it('starts an endpoint at the head and finds its next event: its vault, its types, nothing that only looks alike', async () => {
    const { outbox, a, b, append } = await world();
    await append(a.id, 'wallet.expired'); // before the endpoint: never delivered
    expect((await outbox.behind()).anyEndpoint).toBe(false);
    const endpoint = await outbox.addEndpoint({ id: 'e1', vaultId: a.id, url: 'https://x.example/', events: ['wallet.expired', 'wallet.deleted'], created: new Date() });
    expect(endpoint.deliveredSeq).toBe(1);
    // Not behind, yet there: a new event of this process must still prompt the dispatcher.
    expect(await outbox.behind()).toMatchObject({ endpoints: [], anyEndpoint: true });

    await append(a.id, 'wallet.unexpired');
    await append(b.id, 'wallet.expired');
    await append(a.id, 'signature.issued');
    let { head, endpoints } = await outbox.behind();
    expect(head).toBe(4);
    expect(endpoints.map((e) => [e.id, e.nextSeq])).toEqual([['e1', null]]);
    const expired = await append(a.id, 'wallet.expired');
    ({ head, endpoints } = await outbox.behind());
    expect(endpoints.map((e) => [e.id, e.nextSeq])).toEqual([['e1', expired]]);
    expect((await outbox.nextEvent(endpoints[0]!, head))?.seq).toBe(expired);
    // Bounded: nothing up to a seq before it.
    expect(await outbox.nextEvent(endpoints[0]!, expired - 1)).toBeNull();
  });

  it('moves a cursor only from where the caller saw it, records failures, and gives up into the undeliverable list', async () => {
    const { outbox, a, append } = await world();
    const endpoint = await outbox.addEndpoint({ id: 'e1', vaultId: a.id, url: 'https://x.example/', events: ['signature.issued'], created: new Date() });
    const first = await append(a.id, 'signature.issued');
    const second = await append(a.id, 'signature.issued');
    expect(await outbox.advance('e1', endpoint.deliveredSeq + 1, first)).toBe(false);

    const failedAt = new Date('2026-01-01T00:00:00Z');
    await outbox.recordFailure('e1', endpoint.deliveredSeq, { attempts: 3, nextAttempt: new Date('2026-01-01T00:00:04Z'), firstFailure: failedAt, lastError: 'HTTP 500' });
    const [failing] = await outbox.listEndpoints(a.id);
    expect(failing).toMatchObject({ attempts: 3, nextAttempt: new Date('2026-01-01T00:00:04Z'), firstFailure: failedAt, lastError: 'HTTP 500' });

    const event = (await outbox.nextEvent(failing!, second))!;
    const givenUp = new Date('2026-01-02T00:00:01Z');
    expect(await outbox.giveUp(failing!, event, givenUp, 'HTTP 500')).toBe(true);
    expect(await outbox.giveUp(failing!, event, givenUp, 'HTTP 500')).toBe(false); // the cursor moved already
    expect(await outbox.listUndeliverable({ vaultId: a.id, limit: 10 })).toEqual([
      { endpointId: 'e1', vaultId: a.id, seq: first, type: 'signature.issued', firstFailure: failedAt, givenUp, attempts: 4, lastError: 'HTTP 500' },
    ]);
    const [after] = await outbox.listEndpoints(a.id);
    expect(after).toMatchObject({ deliveredSeq: first, attempts: 0, nextAttempt: null, firstFailure: null, lastError: null });
    expect(await outbox.advance('e1', first, second)).toBe(true);
    expect(await outbox.removeEndpoint(a.id, 'e1')).toBe(true);
    expect(await outbox.removeEndpoint(a.id, 'e1')).toBe(false);
  });

  it('replays from a seq: the cursor moves back, the failures and the undeliverable records from there on go; never forward', async () => {
    const { outbox, a, b, append } = await world();
    const endpoint = await outbox.addEndpoint({ id: 'e1', vaultId: a.id, url: 'https://x.example/', events: ['signature.issued'], created: new Date() });
    const [first, second, third] = [await append(a.id, 'signature.issued'), await append(a.id, 'signature.issued'), await append(a.id, 'signature.issued')];
    const at = new Date('2026-01-01T00:00:00Z');
    const event = async (seq: number) => (await outbox.nextEvent({ ...endpoint, deliveredSeq: seq - 1 }, seq))!;
    // The first two given up on, the third failing.
    expect(await outbox.giveUp({ ...endpoint, firstFailure: at }, await event(first), at, 'HTTP 500')).toBe(true);
    expect(await outbox.giveUp({ ...endpoint, deliveredSeq: first, firstFailure: at }, await event(second), at, 'HTTP 500')).toBe(true);
    await outbox.recordFailure('e1', second, { attempts: 2, nextAttempt: new Date('2026-01-02T00:00:00Z'), firstFailure: at, lastError: 'HTTP 500' });

    expect(await outbox.rewind!(a.id, 'e1', third + 1)).toEqual({ previousSeq: second }); // past the cursor: nothing written
    expect((await outbox.listEndpoints(a.id))[0]).toMatchObject({ deliveredSeq: second, attempts: 2 });
    expect(await outbox.rewind!(b.id, 'e1', first)).toBeNull(); // another vault's
    expect(await outbox.rewind!(a.id, 'e2', first)).toBeNull();

    expect(await outbox.rewind!(a.id, 'e1', second)).toEqual({ previousSeq: second });
    expect((await outbox.listEndpoints(a.id))[0]).toMatchObject({ deliveredSeq: first, attempts: 0, nextAttempt: null, firstFailure: null, lastError: null });
    expect((await outbox.listUndeliverable({ vaultId: a.id, limit: 10 })).map((u) => u.seq)).toEqual([first]);
    const { endpoints } = await outbox.behind();
    expect(endpoints.map((e) => [e.id, e.nextSeq])).toEqual([['e1', second]]);
    // Back to before the endpoint existed: a backfill.
    expect(await outbox.rewind!(a.id, 'e1', 1)).toEqual({ previousSeq: first });
    expect(await outbox.listUndeliverable({ vaultId: a.id, limit: 10 })).toEqual([]);
    expect((await outbox.listEndpoints(a.id))[0]!.deliveredSeq).toBe(0);
  });

  it('keeps the first signing key stored, whoever asks and with whatever they would generate', async () => {
    const { outbox } = await world();
    const keys = await Promise.all(['one', 'two', 'three'].map((k) => outbox.storedSigningKey(() => k, new Date())));
    expect(new Set(keys).size).toBe(1);
    expect(await outbox.storedSigningKey(() => 'four', new Date())).toBe(keys[0]);
  });
});
