import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import createKeccak from 'keccak';
import secp256k1 from 'secp256k1';
import { encodeAbiParameters, toFunctionSelector, type AbiFunction, type AbiParameter, type Hex } from 'viem';

/**
 * The floor of the sign path: the same work as the service (parse the ABI item, ABI-encode, two keccak,
 * one libsecp256k1 signature, a JSON reply) behind a bare node:http server, with none of the service's
 * checks, storage or framework. The service is measured against this in the same run.
 *
 * With a `journal` it is the durable floor: each sign's record is appended to it and the reply released
 * only once an fdatasync covers the record (see DurableJournal).
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

/** Where a durable floor keeps each sign's record before it answers. */
export interface Journal {
  /** Calls `durable` once `line` is on disk. */
  append(line: string, durable: (error?: Error) => void): void;
}

function reply(res: ServerResponse, payload: string): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

/**
 * What the vault keeps per sign, as one JSON line of about the same size: the signature record's fields
 * and the audit record's (actor, action, details, the chain's two hashes). Its content is not checked by
 * anything; its size is what the write and the sync pay for.
 */
function recordLine(submissionHash: Hex, body: SignRequest, selector: Hex, nonce: Hex): string {
  const at = Date.now();
  return `${JSON.stringify({
    submissionHash,
    vaultId: '0f4a9d0e-5b8c-4c31-9f7e-1d2a3b4c5d6e',
    walletId: '8e1c2d3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
    walletAddress: body.sender,
    chain: 'local',
    contract: body.sender,
    sender: body.sender,
    selector,
    created: at,
    audit: {
      seq: at,
      at,
      actor: 'api-key:7c9e6679-7425-40de-944b-e07fc1f90ae7',
      action: 'signature.issued',
      details: { wallet: body.sender, chain: 'local', contract: body.sender, selector, sender: body.sender },
      prevHash: nonce.slice(2),
      hash: submissionHash.slice(2),
    },
  })}\n`;
}

export async function startSignFloor(privateKey: Uint8Array, journal?: Journal): Promise<{ url: string; close(): Promise<void> }> {
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
      if (!journal) return reply(res, payload);
      journal.append(recordLine(submissionHash, body, fn.selector, nonce), (error) => {
        if (error) {
          res.writeHead(500).end();
          return;
        }
        reply(res, payload);
      });
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}
