/** The signature parameter of a signable function: a (bytes32 nonce, bytes32 r, bytes32 s, uint8 v) tuple. */
export const SIGNATURE_PARAM = {
  name: 'sig',
  type: 'tuple',
  components: [
    { name: 'nonce', type: 'bytes32' },
    { name: 'r', type: 'bytes32' },
    { name: 's', type: 'bytes32' },
    { name: 'v', type: 'uint8' },
  ],
};

/** mint(address to, uint256 amount, signature): the call HTTP tests sign on chain `local`. */
export const MINT_ABI = { type: 'function', name: 'mint', inputs: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }, SIGNATURE_PARAM] };
export const MINT_TO = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
export const LOCAL_CONTRACT = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
export const LOCAL_SENDER = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';
export const LOCAL_UNIQ = `0x${'ab'.repeat(32)}`;

/** A valid sign request on chain `local` for `signer` (uniq and signer in the request), with overrides. */
export const localSignBody = (signer: string, extra: Record<string, unknown> = {}) => ({
  chain: 'local',
  contract: LOCAL_CONTRACT,
  sender: LOCAL_SENDER,
  uniq: LOCAL_UNIQ,
  signer,
  abi: MINT_ABI,
  args: [MINT_TO, '1000'],
  ...extra,
});
