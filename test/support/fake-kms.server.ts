import { constants, createPrivateKey, generateKeyPairSync, privateDecrypt, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import secp256k1 from 'secp256k1';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const SPKI_PREFIX = Buffer.from('3056301006072a8648ce3d020106052b8104000a034200', 'hex');

interface FakeKey {
  readonly id: string;
  /** Zeros while an EXTERNAL key waits for its material (state PendingImport). */
  privateKey: Buffer;
  readonly origin: 'AWS_KMS' | 'EXTERNAL';
  /** The wrapping key and token GetParametersForImport handed out last (one at a time, as KMS). */
  importParameters?: { readonly wrapping: KeyObject; readonly token: string };
  /** Tags given to CreateKey, as TagKey -> TagValue. */
  readonly tags: Record<string, string>;
  description?: string;
  state: 'Enabled' | 'Disabled' | 'PendingDeletion' | 'PendingImport';
  pendingWindowInDays?: number;
}

export interface FakeKms {
  readonly url: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Every operation received, in order (`CreateKey`, `Sign`, ...). */
  readonly calls: string[];
  readonly keys: Map<string, FakeKey>;
  /** The next N requests answer 500 InternalFailure. */
  failNext: number;
  /** The next N requests are refused for quota, as KMS does: 400 ThrottlingException (before failNext counts). */
  throttleNext: number;
  /** Every answer is sent this many milliseconds late (a slow network or a throttled KMS). */
  latencyMs: number;
  /** Operations (`GetPublicKey`, ...) that answer 500 for as long as they are in the set. */
  readonly failing: Set<string>;
  close(): Promise<void>;
}

/**
 * A KMS-compatible server for tests: the AWS JSON 1.1 protocol (`X-Amz-Target: TrentService.*`), AWS's
 * field names and error shapes, real secp256k1 keys and DER signatures. Like real KMS it returns high-s
 * signatures about half the time, so the client must normalise. It checks that each request is SigV4
 * signed with the configured access key id (not the signature itself).
 */
export async function startFakeKms(): Promise<FakeKms> {
  const accessKeyId = 'AKIDFAKEKMS000000000';
  const keys = new Map<string, FakeKey>();
  const calls: string[] = [];
  const state = { failNext: 0, throttleNext: 0, latencyMs: 0 };
  const failing = new Set<string>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reply = (status: number, body: object) => {
        const text = JSON.stringify(body);
        const send = () => {
          res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'content-length': Buffer.byteLength(text), 'x-amzn-requestid': randomUUID() });
          res.end(text);
        };
        if (state.latencyMs > 0) setTimeout(send, state.latencyMs);
        else send();
      };
      const error = (type: string, message: string, status = 400) => reply(status, { __type: type, message });
      const target = String(req.headers['x-amz-target'] ?? '');
      const operation = target.replace(/^TrentService\./, '');
      calls.push(operation);
      const auth = String(req.headers.authorization ?? '');
      if (!auth.startsWith(`AWS4-HMAC-SHA256 Credential=${accessKeyId}/`) || !req.headers['x-amz-date']) {
        return error('UnrecognizedClientException', 'The security token included in the request is invalid.');
      }
      if (state.throttleNext > 0) {
        state.throttleNext--;
        return error('ThrottlingException', 'Rate exceeded');
      }
      if (state.failNext > 0 || failing.has(operation)) {
        if (state.failNext > 0) state.failNext--;
        return error('KMSInternalException', 'injected failure', 500);
      }
      let input: Record<string, unknown>;
      try {
        input = JSON.parse(Buffer.concat(chunks).toString() || '{}');
      } catch {
        return error('SerializationException', 'bad JSON');
      }
      const key = typeof input.KeyId === 'string' ? keys.get(input.KeyId) : undefined;
      const needKey = () => {
        if (!key) error('NotFoundException', `Key '${String(input.KeyId)}' does not exist`);
        return key;
      };
      switch (operation) {
        case 'CreateKey': {
          if (input.KeySpec !== 'ECC_SECG_P256K1' || input.KeyUsage !== 'SIGN_VERIFY') return error('ValidationException', 'unsupported key spec');
          let privateKey: Buffer;
          do privateKey = randomBytes(32);
          while (!secp256k1.privateKeyVerify(privateKey));
          const tags: Record<string, string> = {};
          for (const t of Array.isArray(input.Tags) ? (input.Tags as { TagKey?: unknown; TagValue?: unknown }[]) : []) {
            // KMS's own rules: keys 1-128 and values 0-256 characters of letters, digits, spaces and _.:/=+-@
            if (typeof t.TagKey !== 'string' || typeof t.TagValue !== 'string' || !/^[\p{L}\p{Z}\p{N}_.:/=+\-@]{1,128}$/u.test(t.TagKey) || !/^[\p{L}\p{Z}\p{N}_.:/=+\-@]{0,256}$/u.test(t.TagValue)) {
              return error('TagException', 'invalid tag');
            }
            tags[t.TagKey] = t.TagValue;
          }
          const id = randomUUID();
          const external = input.Origin === 'EXTERNAL';
          if (input.Origin !== undefined && input.Origin !== 'AWS_KMS' && !external) return error('ValidationException', 'unsupported origin');
          keys.set(id, {
            id,
            privateKey: external ? Buffer.alloc(32) : privateKey,
            origin: external ? 'EXTERNAL' : 'AWS_KMS',
            tags,
            description: typeof input.Description === 'string' ? input.Description : undefined,
            state: external ? 'PendingImport' : 'Enabled',
          });
          return reply(200, { KeyMetadata: metadata(keys.get(id)!) });
        }
        // BYOK (issue 37): AWS's GetParametersForImport and ImportKeyMaterial for an asymmetric key created
        // with Origin EXTERNAL: RSA-2048 wrapping key (SPKI DER), RSAES_OAEP_SHA_256, PKCS#8 DER material.
        case 'GetParametersForImport': {
          const k = needKey();
          if (!k) return;
          if (k.origin !== 'EXTERNAL') return error('UnsupportedOperationException', `${arn(k.id)} origin is AWS_KMS which is not valid for this operation.`);
          if (input.WrappingAlgorithm !== 'RSAES_OAEP_SHA_256' || input.WrappingKeySpec !== 'RSA_2048') return error('ValidationException', 'unsupported wrapping algorithm or key spec');
          const { publicKey, privateKey: wrapping } = generateKeyPairSync('rsa', { modulusLength: 2048 });
          const token = randomBytes(64).toString('base64');
          k.importParameters = { wrapping, token };
          const spki = publicKey.export({ format: 'der', type: 'spki' });
          return reply(200, { KeyId: arn(k.id), ImportToken: token, PublicKey: spki.toString('base64'), ParametersValidTo: Date.now() / 1000 + 86400 });
        }
        case 'ImportKeyMaterial': {
          const k = needKey();
          if (!k) return;
          if (k.state !== 'PendingImport') return error('KMSInvalidStateException', `${arn(k.id)} is ${k.state.toLowerCase()}.`);
          if (!k.importParameters || input.ImportToken !== k.importParameters.token) return error('InvalidImportTokenException', 'Import token is invalid.');
          if (input.ExpirationModel !== undefined && input.ExpirationModel !== 'KEY_MATERIAL_DOES_NOT_EXPIRE' && input.ExpirationModel !== 'KEY_MATERIAL_EXPIRES') return error('ValidationException', 'bad expiration model');
          let material: Buffer;
          try {
            material = privateDecrypt({ key: k.importParameters.wrapping, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, Buffer.from(String(input.EncryptedKeyMaterial), 'base64'));
          } catch {
            return error('InvalidCiphertextException', 'The ciphertext is invalid.');
          }
          let imported: Buffer;
          try {
            const key = createPrivateKey({ key: material, format: 'der', type: 'pkcs8' });
            if (key.asymmetricKeyDetails?.namedCurve !== 'secp256k1') throw new Error('not secp256k1');
            imported = Buffer.from(key.export({ format: 'jwk' }).d!, 'base64url');
          } catch {
            return error('IncorrectKeyMaterialException', 'The key material is not a PKCS#8 secp256k1 private key.');
          }
          k.privateKey = imported;
          k.importParameters = undefined;
          k.state = 'Enabled';
          return reply(200, {});
        }
        case 'GetPublicKey': {
          const k = needKey();
          if (!k) return;
          if (k.state === 'PendingDeletion') return error('KMSInvalidStateException', `${k.id} is pending deletion.`);
          if (k.state === 'PendingImport') return error('KMSInvalidStateException', `${arn(k.id)} is pending import.`);
          const spki = Buffer.concat([SPKI_PREFIX, secp256k1.publicKeyCreate(k.privateKey, false)]);
          return reply(200, { KeyId: arn(k.id), PublicKey: spki.toString('base64'), KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY', SigningAlgorithms: ['ECDSA_SHA_256'] });
        }
        case 'Sign': {
          const k = needKey();
          if (!k) return;
          if (k.state !== 'Enabled') return error('KMSInvalidStateException', `${arn(k.id)} is ${k.state.toLowerCase()}.`);
          if (input.MessageType !== 'DIGEST' || input.SigningAlgorithm !== 'ECDSA_SHA_256') return error('ValidationException', 'expected a DIGEST with ECDSA_SHA_256');
          const digest = Buffer.from(String(input.Message), 'base64');
          if (digest.length !== 32) return error('ValidationException', 'Digest is invalid length for algorithm ECDSA_SHA_256.');
          const { signature } = secp256k1.ecdsaSign(digest, k.privateKey);
          if (Math.random() < 0.5) {
            const s = BigInt(`0x${Buffer.from(signature.subarray(32)).toString('hex')}`);
            signature.set(Buffer.from((N - s).toString(16).padStart(64, '0'), 'hex'), 32);
          }
          const der = Buffer.from(secp256k1.signatureExport(signature));
          return reply(200, { KeyId: arn(k.id), Signature: der.toString('base64'), SigningAlgorithm: 'ECDSA_SHA_256' });
        }
        case 'DisableKey': {
          const k = needKey();
          if (!k) return;
          if (k.state === 'PendingDeletion') return error('KMSInvalidStateException', `${arn(k.id)} is pending deletion.`);
          k.state = 'Disabled';
          return reply(200, {});
        }
        case 'ScheduleKeyDeletion': {
          const k = needKey();
          if (!k) return;
          if (k.state === 'PendingDeletion') return error('KMSInvalidStateException', `${arn(k.id)} is pending deletion.`);
          const days = Number(input.PendingWindowInDays ?? 30);
          if (days < 7 || days > 30) return error('ValidationException', 'PendingWindowInDays must be between 7 and 30');
          k.state = 'PendingDeletion';
          k.pendingWindowInDays = days;
          return reply(200, { KeyId: arn(k.id), KeyState: 'PendingDeletion', PendingWindowInDays: days, DeletionDate: Date.now() / 1000 + days * 86400 });
        }
        case 'ListKeys':
          return reply(200, { Keys: [...keys.values()].slice(0, Number(input.Limit ?? 100)).map((k) => ({ KeyId: k.id, KeyArn: arn(k.id) })), Truncated: false });
        default:
          return error('UnknownOperationException', `unknown operation ${operation}`);
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    accessKeyId,
    secretAccessKey: 'fake-secret-access-key',
    calls,
    keys,
    failing,
    get failNext() {
      return state.failNext;
    },
    set failNext(n: number) {
      state.failNext = n;
    },
    get throttleNext() {
      return state.throttleNext;
    },
    set throttleNext(n: number) {
      state.throttleNext = n;
    },
    get latencyMs() {
      return state.latencyMs;
    },
    set latencyMs(ms: number) {
      state.latencyMs = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const arn = (id: string) => `arn:aws:kms:us-east-1:000000000000:key/${id}`;
const metadata = (k: FakeKey) => ({
  KeyId: k.id,
  Arn: arn(k.id),
  KeyState: k.state,
  Enabled: k.state === 'Enabled',
  KeySpec: 'ECC_SECG_P256K1',
  KeyUsage: 'SIGN_VERIFY',
  SigningAlgorithms: ['ECDSA_SHA_256'],
  CreationDate: Date.now() / 1000,
  KeyManager: 'CUSTOMER',
  Origin: k.origin,
});
