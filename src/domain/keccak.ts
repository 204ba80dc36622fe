import createKeccak from 'keccak';

/**
 * Ethereum's keccak256 (not NIST SHA3-256), through the native binding of the `keccak` package: about ten
 * times faster than JavaScript on the sign path, where it runs several times per request.
 */
export function keccak256(data: Uint8Array): Buffer {
  return createKeccak('keccak256').update(Buffer.from(data.buffer, data.byteOffset, data.byteLength)).digest();
}
