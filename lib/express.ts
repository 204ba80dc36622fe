/** `wallet-vault/express`: the whole HTTP interface as an Express router. */
export { vaultRouter, type VaultRouterOptions } from '../adapters/main/vault-router.js';
export type { JsonBounds } from '../adapters/http/json-bounds.js';
export { registerApiDocs, type ApiDocsOptions } from '../adapters/http/openapi/api-docs.routes.js';
