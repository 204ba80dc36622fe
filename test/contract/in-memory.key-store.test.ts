import { InMemoryKeyStore } from '../support/in-memory.key-store.js';
import { describeKeyStoreContract } from './key-store.contract.js';

// The unit tests' twin must behave like a real key store, or those tests prove nothing.
describeKeyStoreContract('in-memory (test twin)', async () => ({ store: new InMemoryKeyStore('memory'), cleanup: async () => undefined }));
