import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Every answer of the API that a test fetches is checked against the OpenAPI document.
    setupFiles: ['test/support/openapi-conformance.setup.ts'],
    globalSetup: ['test/support/build.global-setup.ts', 'test/chain/compile-contracts.global-setup.ts'],
  },
});
