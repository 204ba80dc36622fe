// Moved into the package (wallet-vault/testing). Tests import the source, not the built entry, so the
// errors these throw are the same DomainError class as the code under test.
export * from '../../adapters/testing/clocks.js';
