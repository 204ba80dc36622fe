// vitest configuration of `npm run docs:screenshots` (scripts/docs-screenshots.ts): the build and the
// keccak set-up of the test configuration, one file, no time limit that a slow machine could miss.
export default {
  test: {
    include: ['scripts/docs-screenshots.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    setupFiles: ['test/support/keccak.setup.ts'],
    globalSetup: ['test/support/build.global-setup.ts'],
  },
};
