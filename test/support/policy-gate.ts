import { CHAIN_IDS } from '../../src/domain/chains.js';
import { documentOf } from '../../src/application/signing/policy-cache.js';
import { SignPolicyGate } from '../../src/application/signing/sign-policy-gate.js';
import { chainDirectory } from '../../src/domain/policy/chain-directory.js';
import type { AuditLog } from '../../src/ports/audit-log.port.js';
import type { Clock } from '../../src/ports/clock.port.js';
import type { PolicyRepository } from '../../src/ports/policy-repository.port.js';
import type { SignCounter } from '../../src/ports/sign-counter.port.js';

/** The interface's chains by name and id, as the composition root gives them. */
export const TEST_CHAIN_IDS = chainDirectory(Object.fromEntries(Object.entries(CHAIN_IDS).map(([name, id]) => [name, id.toString()])));

/** The one policy gate over a repository read afresh each time (no cache), as the use cases take it. */
export function gateOver(policies: PolicyRepository, auditLog: AuditLog, clock: Clock, signCounter?: SignCounter): SignPolicyGate {
  return new SignPolicyGate({ policies: { forSigning: async (vaultId) => ({ document: documentOf(await policies.find(vaultId), TEST_CHAIN_IDS), fence: null }) }, auditLog, clock, signCounter });
}
