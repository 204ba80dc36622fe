import { describeKeyStoreContract, InMemoryKeyStore } from 'wallet-vault/testing';

// The unit tests' twin must behave like a real key store, or those tests prove nothing.
describeKeyStoreContract('in-memory (test twin)', async () => ({ store: new InMemoryKeyStore('memory'), cleanup: async () => undefined }));
