import { installKeccak256 } from '../../adapters/system/keccak.js';

/**
 * Tests call the domain's pure functions (addresses, digests) without going through an entry point, so
 * every test file starts with the keccak256 the entry points give. Whether each entry point gives it is
 * test/lib/keccak-entry-points.test.ts's question, asked in processes without this setup.
 */
installKeccak256();
