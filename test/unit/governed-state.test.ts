import { describe, expect, it } from 'vitest';
import { canonicalStateJson, diffStates, governedApiKey, readState, stateHash, withEntry, withSecretHashes, type GovernedApiKey, type GovernedState } from '../../src/domain/governance.js';

/*
 * The governed state's text is what a quorum signs (docs/governance.md): a field added to it must leave
 * every state without that field hashing as it did, or the chains already pinned would stop verifying.
 */

const VAULT = '0192f0a0-0000-7000-8000-000000000001';
const APPROVER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const OTHER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const PASSKEY = { credentialId: 'q1w2e3r4t5y6u7i8o9p0aA', publicKey: 'pQECAyYgASFYIB3k_zrAbCdEfGh-IjKlMnOpQrStUvWxYz0123456789' };

const state = (apiKeys: GovernedState['apiKeys']): GovernedState => ({
  version: 1,
  vault: VAULT,
  previous: null,
  policy: null,
  governance: { required: 2, approvers: [OTHER, APPROVER], delay: '1h' },
  liftedFreezes: 0,
  apiKeys,
  webhooks: [],
});
const SECRET_HASH = 'c0ffee'.repeat(10) + 'c0de';
/** Keys as a state of the release before secret hashes lists them: no secretHash field. */
const KEYS: GovernedApiKey[] = [
  { id: '0a1b2c3d4e5f6071', roles: ['approver'], group: 'finance', approverAddress: APPROVER },
  { id: '1122334455667788', roles: ['admin', 'signer'], group: null, approverAddress: null },
];
/** A key row as governedApiKey is given it. */
const row = (id: string, roles: GovernedApiKey['roles']) => ({ id, roles, secretHash: SECRET_HASH });

describe('governed state', () => {
  it('a state without passkeys keeps its text and hash (pinned: keccak256 of this text, computed with ethers)', () => {
    const text =
      '{"apiKeys":[{"approverAddress":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8","group":"finance","id":"0a1b2c3d4e5f6071","roles":["approver"]},' +
      '{"approverAddress":null,"group":null,"id":"1122334455667788","roles":["admin","signer"]}],' +
      '"governance":{"approvers":["0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC","0x70997970C51812dc3A010C7d01b50e0d17dc79C8"],"delay":"1h","required":2},' +
      '"liftedFreezes":0,"policy":null,"previous":null,"vault":"0192f0a0-0000-7000-8000-000000000001","version":1,"webhooks":[]}';
    expect(canonicalStateJson(state(KEYS))).toBe(text);
    expect(stateHash(state(KEYS))).toBe('0xd0ff88f6004123ea3025d37447d6dc19a7bee0289f43ccd22cc7cdcc889d81a1');
    // governedApiKey adds no passkey field to a key that has none (not even an undefined one).
    expect(Object.keys(governedApiKey(row('k', ['approver']), null))).toEqual(['id', 'roles', 'group', 'approverAddress', 'secretHash']);
  });

  it("a key row's secret hash is listed with it, changes the hash, reads back, and a state without it gets it from the unrevoked row", () => {
    const listed = governedApiKey({ ...row('1122334455667788', ['signer', 'admin']) });
    expect(listed).toEqual({ id: '1122334455667788', roles: ['admin', 'signer'], group: null, approverAddress: null, secretHash: SECRET_HASH });
    const withHash = withEntry(KEYS, listed);
    expect(canonicalStateJson(state(withHash))).toContain(`"secretHash":"${SECRET_HASH}"`);
    expect(stateHash(state(withHash))).not.toBe(stateHash(state(KEYS)));
    expect(readState(canonicalStateJson(state(withHash)), VAULT).apiKeys![1]!.secretHash).toBe(SECRET_HASH);
    expect(() => readState(JSON.stringify(state([{ ...listed, secretHash: 7 } as never])), VAULT)).toThrow(/secretHash/);
    expect(diffStates(state(KEYS), state(withHash)).apiKeys).toEqual({ added: [], removed: [], changed: ['1122334455667788'] });
    const rows = [
      { id: '0a1b2c3d4e5f6071', secretHash: 'ab'.repeat(32), revoked: new Date(0) },
      { id: '1122334455667788', secretHash: SECRET_HASH, revoked: null },
    ];
    // The revoked row gives nothing; an entry that has its hash keeps it, whatever the row says.
    expect(withSecretHashes(KEYS, rows)).toEqual([KEYS[0], listed]);
    expect(withSecretHashes(withHash, [{ ...rows[1]!, secretHash: 'ab'.repeat(32) }])).toEqual(withHash);
  });

  it('a key with a passkey carries it, and changes the hash', () => {
    const withPasskey = withEntry(KEYS, governedApiKey(row('2233445566778899', ['approver']), PASSKEY));
    expect(withPasskey.find((k) => k.id === '2233445566778899')).toEqual({ id: '2233445566778899', roles: ['approver'], group: null, approverAddress: null, secretHash: SECRET_HASH, passkey: PASSKEY });
    expect(canonicalStateJson(state(withPasskey))).toContain(`"passkey":{"credentialId":"${PASSKEY.credentialId}","publicKey":"${PASSKEY.publicKey}"}`);
    expect(stateHash(state(withPasskey))).not.toBe(stateHash(state(KEYS)));
  });

  it('readState takes a well-formed passkey and refuses a malformed one', () => {
    const good = state([governedApiKey(row('k', ['approver']), PASSKEY)]);
    expect(readState(canonicalStateJson(good), VAULT).apiKeys![0]!.passkey).toEqual(PASSKEY);
    for (const passkey of [null, 'text', { credentialId: PASSKEY.credentialId }, { credentialId: 'has space', publicKey: PASSKEY.publicKey }, { credentialId: PASSKEY.credentialId, publicKey: 7 }]) {
      const bad = state([{ ...governedApiKey(row('k', ['approver'])), passkey } as never]);
      expect(() => readState(JSON.stringify(bad), VAULT)).toThrow(/passkey/);
    }
  });

  it('a changed, added or removed passkey shows as a changed key entry', () => {
    const before = state([governedApiKey(row('k', ['approver']), PASSKEY)]);
    const swapped = state([governedApiKey(row('k', ['approver']), { ...PASSKEY, publicKey: 'pQECAyYgASFYIAnotherKey' })]);
    const none = state([governedApiKey(row('k', ['approver']))]);
    expect(diffStates(before, swapped).apiKeys).toEqual({ added: [], removed: [], changed: ['k'] });
    expect(diffStates(none, before).apiKeys).toEqual({ added: [], removed: [], changed: ['k'] });
    expect(diffStates(before, none).apiKeys).toEqual({ added: [], removed: [], changed: ['k'] });
    expect(diffStates(before, before).apiKeys).toEqual({ added: [], removed: [], changed: [] });
  });
});
