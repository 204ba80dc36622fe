/** `wallet-vault/express`: the whole HTTP interface as an Express router. */
import { installKeccak256 } from '../adapters/system/keccak.js';
export { vaultRouter, webhookKeysHandler, auditCheckpointKeysHandler, type VaultRouterOptions } from '../adapters/main/vault-router.js';
export { WEBHOOK_KEYS_PATH, AUDIT_CHECKPOINT_KEYS_PATH } from '../adapters/http/service-routes.js';
export type { JsonBounds } from '../adapters/http/json-shape.js';
export type { RedisClientLike } from '../adapters/rate-limit/redis.request-rates.js';
export { registerApiDocs, type ApiDocsOptions } from '../adapters/http/openapi/api-docs.routes.js';

// The domain hashes with the keccak256 it is given (src/domain/keccak.ts): this entry gives it before anything of it runs.
installKeccak256();
