import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // expect.poll ends as soon as its condition holds; its default 1 s bound is a timing margin that a
    // busy 2-core machine can miss, so every poll gets the test's own bound instead.
    expect: { poll: { timeout: 25_000 } },
    // Every answer of the API that a test fetches is checked against the OpenAPI document.
    // The domain hashes with the keccak256 it is given; tests that call it directly get the entry points' one.
    setupFiles: ['test/support/keccak.setup.ts', 'test/support/openapi-conformance.setup.ts'],
    globalSetup: ['test/support/build.global-setup.ts', 'test/chain/compile-contracts.global-setup.ts'],
  },
});
