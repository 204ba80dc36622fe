import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import createKeccak from 'keccak';
import secp256k1 from 'secp256k1';
import { encodeAbiParameters, toFunctionSelector, type AbiFunction, type AbiParameter, type Hex } from 'viem';

/**
 * The floor of the sign path: the same work as the service (parse the ABI item, ABI-encode, two keccak,
 * one libsecp256k1 signature, a JSON reply) behind a bare node:http server, with none of the service's
 * checks, storage or framework. The service is measured against this in the same run.
 */
const SIG_TYPES = ['bytes32', 'bytes32', 'bytes32', 'uint8'];
const isSignatureParam = (p: AbiParameter) =>
  p.type === 'tuple' && 'components' in p && p.components.map((c) => c.type).join() === SIG_TYPES.join();

const keccak_256 = (data: Buffer) => createKeccak('keccak256').update(data).digest();
const hex = (b: Uint8Array): Hex => `0x${Buffer.from(b).toString('hex')}`;

interface SignRequest {
  abi: AbiFunction;
  args: unknown[];
  uniq: Hex;
  sender: Hex;
}

// A function of its own so the profiling benchmark can tell body parsing from the rest.
const parseSignRequest = (chunks: Buffer[]) => JSON.parse(Buffer.concat(chunks).toString()) as SignRequest;

export async function startSignFloor(privateKey: Uint8Array): Promise<{ url: string; close(): Promise<void> }> {
  const parsed = new Map<string, { selector: Hex; inputs: AbiParameter[]; sigIndex: number }>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = parseSignRequest(chunks);
      const key = JSON.stringify(body.abi);
      let fn = parsed.get(key);
      if (!fn) {
        const sigIndex = body.abi.inputs.findIndex(isSignatureParam);
        fn = { selector: toFunctionSelector(body.abi), inputs: body.abi.inputs.filter((_, i) => i !== sigIndex), sigIndex };
        parsed.set(key, fn);
      }
      const message = encodeAbiParameters([{ type: 'bytes4' }, ...fn.inputs], [fn.selector, ...body.args]);
      const nonce = hex(randomBytes(32));
      const digest = keccak_256(
        Buffer.from(
          encodeAbiParameters(
            [{ type: 'bytes32' }, { type: 'bytes32' }, { type: 'address' }, { type: 'bytes' }],
            [body.uniq, nonce, body.sender, message],
          ).slice(2),
          'hex',
        ),
      );
      const { signature, recid } = secp256k1.ecdsaSign(digest, privateKey);
      const r = hex(signature.subarray(0, 32));
      const s = hex(signature.subarray(32));
      const v = 27 + recid;
      const submissionHash = hex(
        keccak_256(
          Buffer.from(
            encodeAbiParameters(
              [{ type: 'bytes32' }, { type: 'bytes32' }, { type: 'bytes32' }, { type: 'uint8' }],
              [nonce, r, s, v],
            ).slice(2),
            'hex',
          ),
        ),
      );
      const args = [...body.args];
      args.splice(fn.sigIndex, 0, { nonce, r, s, v });
      const payload = JSON.stringify({ success: true, data: { submissionHash, args } });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
      res.end(payload);
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}
