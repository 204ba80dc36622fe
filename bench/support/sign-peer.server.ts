import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { AbiCoder, Interface, keccak256, SigningKey, type JsonFragment } from 'ethers';
import express from 'express';

/**
 * What a team writes instead of the vault: an Express 5 route with express.json() and ethers v6 doing the
 * same work (ABI-encode the call, hash, sign, hash the submission, reply), with no authentication, no
 * checks and no storage. Measured beside the floors as the everyday reference.
 */
const SIG_TYPES = 'bytes32,bytes32,bytes32,uint8';

interface SignRequest {
  abi: JsonFragment & { inputs: { type: string; components?: { type: string }[] }[] };
  args: unknown[];
  uniq: string;
  sender: string;
}

export async function startSignPeer(privateKey: Uint8Array): Promise<{ url: string; close(): Promise<void> }> {
  const key = new SigningKey(privateKey);
  const coder = AbiCoder.defaultAbiCoder();
  const app = express();
  app.use(express.json());
  app.post('/sign', (req, res) => {
    const body = req.body as SignRequest;
    const fn = new Interface([body.abi]).getFunction(body.abi.name!)!;
    const sigIndex = body.abi.inputs.findIndex((p) => p.type === 'tuple' && p.components?.map((c) => c.type).join() === SIG_TYPES);
    const inputs = fn.inputs.filter((_, i) => i !== sigIndex);
    const message = coder.encode(['bytes4', ...inputs], [fn.selector, ...body.args]);
    const nonce = `0x${randomBytes(32).toString('hex')}`;
    const digest = keccak256(coder.encode(['bytes32', 'bytes32', 'address', 'bytes'], [body.uniq, nonce, body.sender, message]));
    const sig = key.sign(digest);
    const submissionHash = keccak256(coder.encode(['bytes32', 'bytes32', 'bytes32', 'uint8'], [nonce, sig.r, sig.s, sig.v]));
    const args = [...body.args];
    args.splice(sigIndex, 0, { nonce, r: sig.r, s: sig.s, v: sig.v });
    res.json({ success: true, data: { submissionHash, args } });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}
