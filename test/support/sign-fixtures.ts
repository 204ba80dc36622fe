/** A one-argument signable function and the addresses application-level sign tests call it with. */
export const SIGNER_ABI = {
  type: 'function',
  name: 'go',
  inputs: [
    { name: 'x', type: 'uint256' },
    { name: 'sig', type: 'tuple', components: [{ name: 'nonce', type: 'bytes32' }, { name: 'r', type: 'bytes32' }, { name: 's', type: 'bytes32' }, { name: 'v', type: 'uint8' }] },
  ],
};
export const CONTRACT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
export const SENDER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
