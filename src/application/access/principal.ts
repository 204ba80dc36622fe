import type { ApiKeyRole } from '../../domain/api-key-access.js';

/**
 * Who is calling: the API key (by id) that authenticated, the vault it belongs to, and the roles it holds
 * (Authorize checks them). A module of its own:
 * authenticate.use-case.ts makes one and audit-actor.ts names its actor, and the refusal summary between
 * them imports audit-actor.ts, so the type living in either would close an import circle.
 */
export interface Principal {
  readonly apiKeyId: string;
  readonly vaultId: string;
  readonly roles: readonly ApiKeyRole[];
  /** The key's approver group (a rule naming a group counts only its keys' votes); absent or null: none. */
  readonly group?: string | null;
  /** The key's approver credential: its votes count only signed by this address. Absent or null: none. */
  readonly approverAddress?: string | null;
}
