import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeVault {
  readonly url: string;
  readonly token: string;
  /** `operation` of every request (`encrypt`, `decrypt`, `rewrap`, `read-key`, ...). */
  readonly calls: string[];
  /** Rotates a Transit key to a new version, as `vault write -f transit/keys/<name>/rotate` does. */
  rotate(name: string): void;
  /** The next N requests answer 500. */
  failNext: number;
  close(): Promise<void>;
}

/**
 * A Vault-compatible server for the Transit paths the key store uses: token checked from
 * `X-Vault-Token`, real AES-256-GCM with one key per version, ciphertexts `vault:vN:base64(nonce|ct|tag)`,
 * and Vault's response and error shapes (`{"errors": [...]}` with its statuses).
 */
export async function startFakeVault(options: { mount?: string; keys?: string[] } = {}): Promise<FakeVault> {
  const token = `hvs.${randomBytes(12).toString('hex')}`;
  const mount = options.mount ?? 'transit';
  const keys = new Map<string, Buffer[]>((options.keys ?? ['wallet-vault']).map((k) => [k, [randomBytes(32)]]));
  const calls: string[] = [];
  const state = { failNext: 0 };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reply = (status: number, body: object | null) => {
        const text = body === null ? '' : JSON.stringify(body);
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.end(text);
      };
      const errors = (status: number, ...messages: string[]) => reply(status, { errors: messages });
      const url = new URL(req.url ?? '/', 'http://x');
      const m = new RegExp(`^/v1/${mount}/(keys|encrypt|decrypt|rewrap)/([^/]+)(/rotate)?$`).exec(url.pathname);
      const operation = m ? (m[1] === 'keys' ? (m[3] ? 'rotate' : req.method === 'GET' ? 'read-key' : 'create-key') : m[1]!) : 'unknown';
      calls.push(operation);
      if (req.headers['x-vault-token'] !== token) return errors(403, 'permission denied');
      if (state.failNext > 0) {
        state.failNext--;
        return errors(500, 'internal error (injected)');
      }
      if (!m) return errors(404, `no handler for route "${url.pathname}". route entry not found.`);
      const name = m[2]!;
      const versions = keys.get(name);
      let body: Record<string, unknown> = {};
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : {};
      } catch {
        return errors(400, 'failed to parse JSON input');
      }
      if (operation === 'create-key') {
        if (!versions) keys.set(name, [randomBytes(32)]);
        return reply(204, null);
      }
      if (!versions) return errors(operation === 'read-key' ? 404 : 400, `encryption key not found`);
      const encrypt = (plaintext: Buffer) => {
        const version = versions.length;
        const nonce = randomBytes(12);
        const cipher = createCipheriv('aes-256-gcm', versions[version - 1]!, nonce);
        const ct = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
        return { ciphertext: `vault:v${version}:${Buffer.concat([nonce, ct]).toString('base64')}`, key_version: version };
      };
      const decrypt = (ciphertext: unknown): Buffer | string => {
        const parts = /^vault:v(\d+):(.+)$/.exec(String(ciphertext));
        if (!parts) return 'invalid ciphertext: no prefix';
        const key = versions[Number(parts[1]) - 1];
        if (!key) return 'invalid ciphertext: key version not found';
        const raw = Buffer.from(parts[2]!, 'base64');
        try {
          const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
          decipher.setAuthTag(raw.subarray(raw.length - 16));
          return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
        } catch {
          return 'cipher: message authentication failed';
        }
      };
      switch (operation) {
        case 'read-key':
          return reply(200, {
            data: {
              name,
              type: 'aes256-gcm96',
              latest_version: versions.length,
              min_decryption_version: 1,
              keys: Object.fromEntries(versions.map((_, i) => [String(i + 1), 1_700_000_000 + i])),
            },
          });
        case 'rotate':
          versions.push(randomBytes(32));
          return reply(204, null);
        case 'encrypt':
          if (typeof body.plaintext !== 'string') return errors(400, 'missing plaintext to encrypt');
          return reply(200, { data: encrypt(Buffer.from(body.plaintext, 'base64')) });
        case 'decrypt': {
          const plain = decrypt(body.ciphertext);
          if (typeof plain === 'string') return errors(400, plain);
          return reply(200, { data: { plaintext: plain.toString('base64') } });
        }
        case 'rewrap': {
          const plain = decrypt(body.ciphertext);
          if (typeof plain === 'string') return errors(400, plain);
          return reply(200, { data: encrypt(plain) });
        }
        default:
          return errors(405, 'unsupported operation');
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    calls,
    rotate: (name) => keys.get(name)?.push(randomBytes(32)),
    get failNext() {
      return state.failNext;
    },
    set failNext(n: number) {
      state.failNext = n;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
