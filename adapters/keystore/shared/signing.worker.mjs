// The thread of SigningThread (signing-thread.ts), started by adapters/system/worker-file.ts. Plain
// JavaScript so that node runs this one file both from the sources and from the package.
//
// Each message is one batch: `count` signs, each 64 bytes of `input` (the 32-byte private key, then the
// 32-byte digest), in one transferred buffer that is zeroed once signed. The answer is 65 bytes per sign:
// r and s, then the recovery id, or FAILED where libsecp256k1 refused the key (the main thread then signs
// that one itself, to raise the error it always raised). The sizes are signing-thread.ts's IN, OUT, FAILED.
import { parentPort } from 'node:worker_threads';
import secp256k1 from 'secp256k1';

const IN = 64;
const OUT = 65;
const FAILED = 255;

parentPort.on('message', ({ id, input, count }) => {
  const bytes = new Uint8Array(input);
  const out = new Uint8Array(count * OUT);
  for (let i = 0; i < count; i++) {
    const at = i * IN;
    try {
      const { signature, recid } = secp256k1.ecdsaSign(bytes.subarray(at + 32, at + 64), bytes.subarray(at, at + 32));
      out.set(signature, i * OUT);
      out[i * OUT + 64] = recid;
    } catch {
      out[i * OUT + 64] = FAILED;
    }
  }
  bytes.fill(0);
  parentPort.postMessage({ id, output: out.buffer }, [out.buffer]);
});
