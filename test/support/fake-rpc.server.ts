import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { id } from 'ethers';

// Selectors of uniq() and signer(), computed by ethers, independently of the code under test.
const UNIQ_CALL = id('uniq()').slice(0, 10);
const SIGNER_CALL = id('signer()').slice(0, 10);

/** What the fake answers; tests change it between requests. */
export interface FakeRpcAnswers {
  chainId: bigint;
  /** bytes32 returned by uniq() for any contract. */
  uniq: string;
  /** Address returned by signer() for any contract. */
  signer: string;
  /** eth_call reverts, as at an address without a signable contract. */
  revert?: boolean;
}

export interface FakeRpc {
  readonly url: string;
  readonly answers: FakeRpcAnswers;
  /** JSON-RPC methods asked so far, in order. */
  readonly calls: string[];
  close(): Promise<void>;
}

/**
 * A JSON-RPC endpoint that says whatever the test wants: eth_chainId and eth_call for uniq()/signer()
 * of any address. The attacker's RPC of the uniq-trust tests (an honest node cannot lie on demand).
 */
export async function startFakeRpc(initial: FakeRpcAnswers): Promise<FakeRpc> {
  const answers = { ...initial };
  const calls: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const request = JSON.parse(await bodyOf(req)) as { id: unknown; method: string; params?: unknown[] } | { id: unknown; method: string }[];
    const answer = (one: { id: unknown; method: string; params?: unknown[] }) => {
      calls.push(one.method);
      return { jsonrpc: '2.0', id: one.id, ...resultOf(answers, one.method, one.params ?? []) };
    };
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(Array.isArray(request) ? request.map(answer) : answer(request)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    answers,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function resultOf(answers: FakeRpcAnswers, method: string, params: unknown[]): { result: unknown } | { error: unknown } {
  if (method === 'eth_chainId') return { result: `0x${answers.chainId.toString(16)}` };
  if (method === 'eth_call') {
    if (answers.revert) return { error: { code: 3, message: 'execution reverted', data: '0x' } };
    const data = String((params[0] as { data?: unknown } | undefined)?.data).slice(0, 10);
    if (data === UNIQ_CALL) return { result: answers.uniq };
    if (data === SIGNER_CALL) return { result: `0x${answers.signer.slice(2).toLowerCase().padStart(64, '0')}` };
  }
  return { error: { code: -32601, message: `method ${method} not served by the fake` } };
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
