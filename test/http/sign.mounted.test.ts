// test/http/sign.test.ts again, against vaultRouter mounted under /vault in an Express app of its own
// (test/support/test-server.ts reads the variable): the same answers byte for byte.
process.env.WALLET_VAULT_TEST_MOUNT = '/vault';
await import('./sign.test.js');
