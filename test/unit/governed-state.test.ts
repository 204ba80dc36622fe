import { describe, expect, it } from 'vitest';
import { canonicalStateJson, diffStates, governedApiKey, readState, stateHash, withEntry, type GovernedState } from '../../src/domain/governance.js';

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
const KEYS = [
  governedApiKey({ id: '0a1b2c3d4e5f6071', roles: ['approver'], group: 'finance', approverAddress: APPROVER }),
  governedApiKey({ id: '1122334455667788', roles: ['signer', 'admin'] }),
];

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
    expect(Object.keys(governedApiKey({ id: 'k', roles: ['approver'] }, null))).toEqual(['id', 'roles', 'group', 'approverAddress']);
  });

  it('a key with a passkey carries it, and changes the hash', () => {
    const withPasskey = withEntry(KEYS, governedApiKey({ id: '2233445566778899', roles: ['approver'] }, PASSKEY));
    expect(withPasskey.find((k) => k.id === '2233445566778899')).toEqual({ id: '2233445566778899', roles: ['approver'], group: null, approverAddress: null, passkey: PASSKEY });
    expect(canonicalStateJson(state(withPasskey))).toContain(`"passkey":{"credentialId":"${PASSKEY.credentialId}","publicKey":"${PASSKEY.publicKey}"}`);
    expect(stateHash(state(withPasskey))).not.toBe(stateHash(state(KEYS)));
  });

  it('readState takes a well-formed passkey and refuses a malformed one', () => {
    const good = state([governedApiKey({ id: 'k', roles: ['approver'] }, PASSKEY)]);
    expect(readState(canonicalStateJson(good), VAULT).apiKeys![0]!.passkey).toEqual(PASSKEY);
    for (const passkey of [null, 'text', { credentialId: PASSKEY.credentialId }, { credentialId: 'has space', publicKey: PASSKEY.publicKey }, { credentialId: PASSKEY.credentialId, publicKey: 7 }]) {
      const bad = state([{ ...governedApiKey({ id: 'k', roles: ['approver'] }), passkey } as never]);
      expect(() => readState(JSON.stringify(bad), VAULT)).toThrow(/passkey/);
    }
  });

  it('a changed, added or removed passkey shows as a changed key entry', () => {
    const before = state([governedApiKey({ id: 'k', roles: ['approver'] }, PASSKEY)]);
    const swapped = state([governedApiKey({ id: 'k', roles: ['approver'] }, { ...PASSKEY, publicKey: 'pQECAyYgASFYIAnotherKey' })]);
    const none = state([governedApiKey({ id: 'k', roles: ['approver'] })]);
    expect(diffStates(before, swapped).apiKeys).toEqual({ added: [], removed: [], changed: ['k'] });
    expect(diffStates(none, before).apiKeys).toEqual({ added: [], removed: [], changed: ['k'] });
    expect(diffStates(before, none).apiKeys).toEqual({ added: [], removed: [], changed: ['k'] });
    expect(diffStates(before, before).apiKeys).toEqual({ added: [], removed: [], changed: [] });
  });
});
