/** The signature parameter a signable function ends with: `(bytes32 nonce, bytes32 r, bytes32 s, uint8 v)`. */
export const SIG = {
  name: 'sig',
  type: 'tuple',
  components: [
    { name: 'nonce', type: 'bytes32' },
    { name: 'r', type: 'bytes32' },
    { name: 's', type: 'bytes32' },
    { name: 'v', type: 'uint8' },
  ],
};

/** `mint(address to, uint256 amount, sig)`. */
export const MINT = { type: 'function', name: 'mint', inputs: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }, SIG] };

/** What every sign on chain `local` needs besides abi and args; `signer` is a wallet of the vault. */
export const localSignFields = (signer: string) => ({
  chain: 'local',
  contract: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
  sender: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
  uniq: `0x${'ab'.repeat(32)}`,
  signer,
});
