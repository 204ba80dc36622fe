import { describeWalletRepositoryContract } from './wallet-repository.contract.js';
import { InMemorySignatureLog, InMemoryWalletRepository } from '../support/in-memory.persistence.js';

// The unit tests' twin must behave like the real adapters, or those tests prove nothing.
describeWalletRepositoryContract('in-memory (test twin)', async () => ({
  repo: new InMemoryWalletRepository(),
  signatureLog: new InMemorySignatureLog(),
  cleanup: async () => undefined,
}));
