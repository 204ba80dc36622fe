import { SIGNATURE_PARAM } from '../../test/support/sign-request.js';

/** The call both sign benchmarks sign: a mint(address, uint256, string, signature). */
export const SIGN_ABI = {
  type: 'function',
  name: 'mint',
  stateMutability: 'nonpayable',
  inputs: [
    { name: 'to', type: 'address' },
    { name: 'amount', type: 'uint256' },
    { name: 'memo', type: 'string' },
    SIGNATURE_PARAM,
  ],
  outputs: [],
};
export const SIGN_ARGS = ['0x70997970c51812dc3a010c7d01b50e0d17dc79c8', '1000000000000000000', 'benchmark'];
export const SIGN_UNIQ = `0x${'ab'.repeat(32)}`;
export const SIGN_SENDER = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';
export const SIGN_CONTRACT = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
