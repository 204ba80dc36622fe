import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliJson, runCli, migrateStore } from '../support/cli.js';

describe('wallet-vault webhooks', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let vaultId: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-webhooks-cli-'));
    env = { VAULT_DATA_DIR: dataDir };
    await migrateStore(env);
    vaultId = (await cliJson<{ id: string }>(['vaults', 'create', '--name', 'hooks'], env)).id;
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('adds, lists and removes endpoints, each change audited without the query string', async () => {
    const added = await cliJson<{ id: string; url: string; events: string[]; deliveredSeq: number }>(
      ['webhooks', 'add', '--vault', vaultId, '--url', 'https://hooks.example.com/in?token=s3cret', '--events', 'wallet.deleted,signature.issued'],
      env,
    );
    // In the types' order, whatever the order asked; the cursor at the head: nothing before is delivered.
    expect(added.events).toEqual(['signature.issued', 'wallet.deleted']);
    const head = (await cliJson<{ seq: number }[]>(['audit', 'list', '--json'], env)).at(-1)!.seq;
    expect(added.deliveredSeq).toBe(head - 1); // the record of this very addition follows it
    const all = await cliJson<{ id: string; events: string[] }>(['webhooks', 'add', '--vault', vaultId, '--url', 'http://127.0.0.1:9/hook'], env);
    expect(all.events).toEqual(['approval.requested', 'approval.decided', 'signature.issued', 'wallet.expired', 'wallet.deleted', 'key.quarantined', 'audit.checkpoint']);

    const listed = await cliJson<{ id: string; url: string }[]>(['webhooks', 'list', '--vault', vaultId], env);
    expect(listed.map((e) => e.id)).toEqual([added.id, all.id]);
    expect(listed[0]!.url).toBe('https://hooks.example.com/in?token=s3cret');

    await cliJson(['webhooks', 'remove', '--vault', vaultId, added.id], env);
    expect((await cliJson<{ id: string }[]>(['webhooks', 'list', '--vault', vaultId], env)).map((e) => e.id)).toEqual([all.id]);
    const again = await runCli(['webhooks', 'remove', '--vault', vaultId, added.id, '--json'], env);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stderr.trim().split('\n').at(-1)!)).toMatchObject({ code: 'INVALID_ARGUMENT' });

    const changes = (await cliJson<{ action: string; subject: string; details: Record<string, unknown> }[]>(['audit', 'list', '--vault', vaultId], env)).filter(
      (r) => r.action === 'webhook.changed',
    );
    expect(changes.map((r) => [r.subject, r.details.change, r.details.url])).toEqual([
      [added.id, 'added', 'https://hooks.example.com/in'],
      [all.id, 'added', 'http://127.0.0.1:9/hook'],
      [added.id, 'removed', 'https://hooks.example.com/in'],
    ]);
    expect(JSON.stringify(changes)).not.toContain('s3cret');
  });

  it.each([
    [['--url', 'http://hooks.example.com/in'], /http:\/\/hooks\.example\.com is refused: use https:\/\//],
    [['--url', 'ftp://hooks.example.com/in'], /must be an https:\/\/ URL/],
    [['--url', 'not a url'], /must be an https:\/\/ URL/],
    [['--url', 'https://user:pw@hooks.example.com/in'], /must not carry a user or password/],
    [['--url', 'https://hooks.example.com/in', '--events', 'signature.issued,approval.voted'], /approval\.voted unknown/],
  ])('refuses %j', async (args, message) => {
    const r = await runCli(['webhooks', 'add', '--vault', vaultId, ...args, '--json'], env);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!)).toMatchObject({ code: 'INVALID_ARGUMENT', error: expect.stringMatching(message) });
  });

  it('replays an endpoint from an audit seq, audited; refuses a seq past its cursor, a malformed seq, an unknown endpoint', async () => {
    const added = await cliJson<{ id: string; deliveredSeq: number }>(['webhooks', 'add', '--vault', vaultId, '--url', 'https://replay.example.com/in?token=s3cret'], env);
    const replayed = await cliJson<{ id: string; deliveredSeq: number; fromSeq: number; previousSeq: number }>(
      ['webhooks', 'replay', '--vault', vaultId, '--from-seq', '1', added.id, '--json'],
      env,
    );
    expect(replayed).toMatchObject({ id: added.id, deliveredSeq: 0, fromSeq: 1, previousSeq: added.deliveredSeq });
    const refusal = async (seq: string, id: string, message: RegExp) => {
      const r = await runCli(['webhooks', 'replay', '--vault', vaultId, '--from-seq', seq, id, '--json'], env);
      expect(r.code).toBe(1);
      expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!)).toMatchObject({ code: 'INVALID_ARGUMENT', error: expect.stringMatching(message) });
    };
    await refusal('2', added.id, /^from-seq: endpoint .* is done up to seq 0; a replay starts at or before 1 \(it never skips events\)$/);
    for (const seq of ['0', '-1', '1.5', 'x', '1e3']) await refusal(seq, added.id, /^from-seq: an audit seq, a whole number of at least 1$/);
    await refusal('1', 'no-such-endpoint', /^id: vault .* has no webhook endpoint no-such-endpoint$/);
    expect((await cliJson<{ id: string; deliveredSeq: number }[]>(['webhooks', 'list', '--vault', vaultId], env)).find((e) => e.id === added.id)?.deliveredSeq).toBe(0);

    const changes = (await cliJson<{ action: string; subject: string; details: Record<string, unknown> }[]>(['audit', 'list', '--vault', vaultId], env)).filter(
      (r) => r.action === 'webhook.changed' && r.subject === added.id,
    );
    expect(changes.map((r) => r.details)).toEqual([
      { change: 'added', url: 'https://replay.example.com/in', events: expect.any(String) },
      { change: 'replayed', url: 'https://replay.example.com/in', fromSeq: 1, previousSeq: added.deliveredSeq },
    ]);
  });

  it('refuses a vault that does not exist', async () => {
    const r = await runCli(['webhooks', 'add', '--vault', '00000000-0000-7000-8000-000000000000', '--url', 'https://a.example/', '--json'], env);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!)).toMatchObject({ code: 'VAULT_NOT_FOUND' });
  });
});
