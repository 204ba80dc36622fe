import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EthersStandardPayloads } from '../../adapters/ethereum/ethers.standard-payloads.js';
import { SqlApprovalStore } from '../../adapters/persistence/sql/sql.approval-store.js';
import { SqlWalletRepository } from '../../adapters/persistence/sql/sql.wallet-repository.js';
import { approvalView, type ApprovalViewContext } from '../../src/application/approvals/approval-view.js';
import { presentApprovalOf } from '../../src/application/approvals/approval-presenter.js';
import { canonicalJson } from '../../src/application/shared/idempotency.js';
import { approvalKind, encodeHeld, heldOfKind, heldRequestOf, type Approval } from '../../src/domain/approval.js';
import { DomainError } from '../../src/domain/errors.js';
import { HELD_VERSION_FIELD } from '../../src/domain/signing/held-request.js';
import { CALL_KIND } from '../../src/domain/signing/kinds/call/call.kind.js';
import { MESSAGE_KIND } from '../../src/domain/signing/kinds/message/message.kind.js';
import { REGISTERED_SIGNING_KINDS } from '../../src/domain/signing/kinds/registered-signing-kinds.js';
import type { NewApproval } from '../../src/ports/approval-store.port.js';
import type { AuditEvent } from '../../src/ports/audit-log.port.js';
import { describeEachDialect, type OpenedDatabase } from '../support/sql-dialects.js';
import { aVault } from '../support/wallet-mother.js';

/*
 * A held request is read through its kind's codec, whatever release wrote it: a row held before the
 * codecs wrote a `version` (its request is the kind's fields alone) reads as version 1, exactly as a row
 * written now, from a real database of each dialect; a row that does not read as its kind is refused
 * with a reason, never cast.
 */
const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const RECIPIENT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

/** Each kind's fields as a release before versions held them (the text of the rows such a release wrote). */
const LEGACY_FIELDS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  call: {
    chain: 'local',
    contract: TOKEN,
    sender: RECIPIENT,
    uniq: `0x${'ab'.repeat(32)}`,
    signer: WALLET,
    abi: { type: 'function', name: 'claim', inputs: [{ name: 'amount', type: 'uint256' }, { name: 'sig', type: 'tuple', components: [{ name: 'r', type: 'bytes32' }, { name: 's', type: 'bytes32' }, { name: 'x', type: 'bytes32' }, { name: 'v', type: 'uint8' }] }] },
    args: ['5'],
  },
  message: { kind: 'message', address: WALLET, message: 'sign in' },
  'typed-data': {
    kind: 'typed-data',
    address: WALLET,
    typedData: {
      domain: { name: 'Token', version: '1', chainId: 31337, verifyingContract: TOKEN },
      types: { Permit: [{ name: 'owner', type: 'address' }, { name: 'value', type: 'uint256' }] },
      primaryType: 'Permit',
      message: { owner: WALLET, value: '5' },
    },
  },
  transaction: { kind: 'transaction', address: WALLET, transaction: { type: 'eip1559', chainId: 31337, nonce: 0, to: RECIPIENT, value: '1000', data: '0xa9059cbb', gas: '21000', maxFeePerGas: '2000000000', maxPriorityFeePerGas: '1000000000' } },
  authorization: { kind: 'authorization', address: WALLET, authorization: { chainId: 31337, address: TOKEN, nonce: 0 } },
};

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const anApproval = (vaultId: string, request: string): NewApproval => {
  const now = new Date();
  return {
    id: randomUUID(),
    vaultId,
    ruleId: 'a1',
    required: 1,
    group: null,
    requester: 'requester1',
    request,
    requestHash: sha256(request),
    idempotencyKey: null,
    chain: 'local',
    contract: TOKEN,
    sender: WALLET,
    selector: '',
    functionSignature: 'message',
    created: now,
    expires: new Date(now.getTime() + 3_600_000),
  };
};

const payloads = new EthersStandardPayloads();
const context: ApprovalViewContext = {
  policy: null,
  walletName: () => null,
  chainId: () => null,
  chainName: () => null,
  approverName: () => null,
  keyLabel: () => null,
  hasPasskey: () => false,
  payloads,
};

/** What a reader is shown of an approval: the API's presentation and the console's view, but for the row's id, instants and the text's own hash. */
const shown = (approval: Approval) => {
  const a = { ...approval, id: 'same', created: new Date(0), expires: new Date(1) };
  return { presented: { ...presentApprovalOf(a), requestHash: null }, view: { ...approvalView(a, context), requestHash: null } };
};

describeEachDialect((d) => {
  let db: OpenedDatabase;
  let approvals: SqlApprovalStore;
  let vaultId: string;

  beforeAll(async () => {
    db = await d.open();
    const repo = new SqlWalletRepository(db.sql);
    const vault = aVault();
    await repo.ensureAccount(vault.accountId, new Date());
    await repo.insertVault(vault);
    vaultId = vault.id;
    approvals = new SqlApprovalStore(db.sql);
  });
  afterAll(async () => {
    await db?.cleanup();
  });

  const stored = async (request: string): Promise<Approval> => {
    const approval = anApproval(vaultId, request);
    const event: AuditEvent = { action: 'approval.requested', at: approval.created, actor: 'api-key:x', vaultId, subject: approval.id, details: { approval: approval.id } };
    await approvals.create(approval, event);
    return (await approvals.find(vaultId, approval.id))!;
  };

  it('reads a row held before versions as version 1: the same request, shown the same, as a row written now', async () => {
    for (const kind of REGISTERED_SIGNING_KINDS) {
      const fields = LEGACY_FIELDS[kind.name]!;
      const legacy = await stored(canonicalJson(fields));
      const current = await stored(canonicalJson(encodeHeld(fields)));
      expect(Object.hasOwn(JSON.parse(legacy.request), HELD_VERSION_FIELD), kind.name).toBe(false);
      expect(JSON.parse(current.request)[HELD_VERSION_FIELD], kind.name).toBe(kind.held.version);
      expect(approvalKind(legacy), kind.name).toBe(kind.name);
      expect(heldRequestOf(legacy), kind.name).toEqual(heldRequestOf(current));
      expect(heldOfKind(kind, legacy), kind.name).toEqual(kind.held.decode(fields, 1));
      expect(JSON.stringify(shown(legacy)), kind.name).toBe(JSON.stringify(shown(current)));
    }
  });

  it("shows a held standard request as it was given, the codec's version left out", async () => {
    const current = await stored(canonicalJson(encodeHeld(LEGACY_FIELDS.authorization!)));
    expect(presentApprovalOf(current).request).toEqual({ wallet: WALLET, authorization: { chainId: 31337, address: TOKEN, nonce: 0 } });
    expect(approvalView(current, context).authorization).toEqual({ authorization: { chainId: 31337, address: TOKEN, nonce: 0 } });
  });
});

describe("a held request that does not read as its kind is refused with the reason, never cast", () => {
  const refusal = (request: string, read: (a: Pick<Approval, 'request'>) => unknown = heldRequestOf) => {
    try {
      read({ request });
    } catch (error) {
      return error instanceof DomainError ? `${error.code}: ${error.message}` : String(error);
    }
    return 'read';
  };

  it('names the field, the version or the kind that is wrong', () => {
    expect(refusal('not json')).toBe('INTERNAL: held request: cannot be read (it is not JSON)');
    expect(refusal('[1]')).toBe('INTERNAL: held request: cannot be read (it is not a JSON object)');
    expect(refusal(JSON.stringify({ kind: 'message', message: 'hi' }))).toBe('INTERNAL: held request: cannot be read (address: must be the wallet address)');
    expect(refusal(JSON.stringify({ kind: 'typed-data', address: WALLET, typedData: 'Permit' }))).toBe('INTERNAL: held request: cannot be read (typedData: must be a JSON object)');
    expect(refusal(JSON.stringify({ ...LEGACY_FIELDS.message, version: 2 }))).toBe('INTERNAL: held request: cannot be read (version 2 of a held message is newer than this release reads (1))');
    expect(refusal(JSON.stringify({ ...LEGACY_FIELDS.message, version: '1' }))).toBe('INTERNAL: held request: cannot be read (version: "1" is no layout version)');
    expect(refusal(JSON.stringify({ ...LEGACY_FIELDS.call, args: 'five' }))).toBe('INTERNAL: held request: cannot be read (args: must be a list)');
    expect(refusal(JSON.stringify(LEGACY_FIELDS.message), (a) => heldOfKind(CALL_KIND, a))).toBe('INTERNAL: held request: cannot be read (it holds a message, not a call)');
    expect(refusal(JSON.stringify(LEGACY_FIELDS.message), (a) => heldOfKind(MESSAGE_KIND, a))).toBe('read');
  });

  it("writes each standard kind's fields under its name, as approval lists and the release read them", () => {
    for (const kind of REGISTERED_SIGNING_KINDS) {
      if (!kind.standard) continue;
      const held = { address: WALLET, payload: { any: 'thing' } };
      expect(kind.held.encode(held), kind.name).toEqual({ kind: kind.name, address: WALLET, [kind.requestField]: held.payload });
      expect(kind.held.decode(kind.held.encode(held), kind.held.version), kind.name).toEqual(held);
    }
  });
});
