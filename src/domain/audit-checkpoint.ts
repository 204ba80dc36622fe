import { createHash, createPrivateKey, createPublicKey, hkdfSync, sign, verify, type KeyObject } from 'node:crypto';
import type { ChainHead } from './audit-chain.js';
import { invalidArgument } from './errors.js';

/**
 * A signed statement of the audit chain's head: "the record at `seq` had `hash`, at `at`". The chain is
 * global (one `seq` for the whole deployment), so one checkpoint covers every vault's records. Since each
 * record's hash covers its predecessor's, the head's hash commits to every record up to it: removing,
 * changing or re-chaining any of them later is seen by `wallet-vault audit verify --checkpoint`.
 */
export interface AuditCheckpoint extends ChainHead {
  readonly version: 1;
  /** When it was signed (ISO 8601). */
  readonly at: string;
  /** The Ed25519 public key, base64url of its 32 bytes (the `x` of its JWK). */
  readonly publicKey: string;
  /** Ed25519 over checkpointMessage(seq, hash, at), base64url. */
  readonly signature: string;
}

/**
 * HKDF-SHA256's `info` for the checkpoint key: the key is derived from a root that never enters the
 * database (the master key), so a database writer can neither read it nor forge a checkpoint.
 */
export const CHECKPOINT_KEY_INFO = 'wallet-vault/audit-checkpoint/v1';

/** The bytes signed, in this exact form, so that a receiver in any language can rebuild them. */
export const checkpointMessage = (seq: number, hash: string, at: string): Buffer =>
  Buffer.from(`wallet-vault/audit-checkpoint/v1\n${seq}\n${hash}\n${at}`, 'utf8');

/** The PKCS#8 DER prefix of an Ed25519 private key, before its 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
/** The SPKI DER prefix of an Ed25519 public key, before its 32 bytes. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** The checkpoint signing key and its public half. */
export interface CheckpointKey {
  /** base64url of the raw public key, as checkpoints carry it. */
  readonly publicKey: string;
  /** The RFC 7638 thumbprint of its JWK (base64url of SHA-256), the `kid` it is published under. */
  readonly kid: string;
  sign(seq: number, hash: string, at: string): AuditCheckpoint;
}

/** The Ed25519 key derived from `root` (32 bytes or more of secret: the master key). */
export function checkpointKeyFrom(root: Uint8Array): CheckpointKey {
  if (root.length < 32) throw new Error('the checkpoint key root must be at least 32 bytes');
  const seed = Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), CHECKPOINT_KEY_INFO, 32));
  const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  seed.fill(0);
  const publicKey = (createPublicKey(privateKey).export({ format: 'jwk' }) as { x: string }).x;
  return {
    publicKey,
    kid: checkpointKeyId(publicKey),
    sign: (seq, hash, at) => ({ version: 1, seq, hash, at, publicKey, signature: sign(null, checkpointMessage(seq, hash, at), privateKey).toString('base64url') }),
  };
}

/** The RFC 7638 thumbprint of an Ed25519 public key (base64url raw). */
export const checkpointKeyId = (publicKey: string): string =>
  createHash('sha256').update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x: publicKey })).digest('base64url');

/** The JWK a receiver fetches the key as (RFC 8037). */
export const checkpointJwk = (publicKey: string) =>
  ({ kty: 'OKP', crv: 'Ed25519', x: publicKey, kid: checkpointKeyId(publicKey), use: 'sig', alg: 'EdDSA' }) as const;

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const HASH = /^[0-9a-f]{64}$/;

/**
 * A checkpoint read from a file or a webhook (its JSON text), its shape checked field by field. The
 * signature is not checked here: verifyCheckpoint does.
 */
export function parseCheckpoint(text: string): AuditCheckpoint {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw invalidArgument('checkpoint: not JSON');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalidArgument('checkpoint: not a JSON object');
  const c = raw as Record<string, unknown>;
  if (c.version !== 1) throw invalidArgument('checkpoint.version: must be 1');
  if (typeof c.seq !== 'number' || !Number.isSafeInteger(c.seq) || c.seq < 0) throw invalidArgument('checkpoint.seq: must be a whole number of at least 0');
  if (typeof c.hash !== 'string' || !HASH.test(c.hash)) throw invalidArgument('checkpoint.hash: must be 64 lower-case hex digits');
  if (typeof c.at !== 'string' || Number.isNaN(Date.parse(c.at))) throw invalidArgument('checkpoint.at: must be an ISO 8601 time');
  if (typeof c.publicKey !== 'string' || !BASE64URL.test(c.publicKey)) throw invalidArgument('checkpoint.publicKey: must be base64url');
  if (typeof c.signature !== 'string' || !BASE64URL.test(c.signature)) throw invalidArgument('checkpoint.signature: must be base64url');
  return { version: 1, seq: c.seq, hash: c.hash, at: c.at, publicKey: c.publicKey, signature: c.signature };
}

/** An Ed25519 public key from base64url raw bytes, or a JWK's JSON text; null when it is neither. */
export function parsePublicKey(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      const jwk = JSON.parse(trimmed) as { kty?: unknown; crv?: unknown; x?: unknown; keys?: unknown };
      const key = Array.isArray(jwk.keys) && jwk.keys.length === 1 ? (jwk.keys[0] as typeof jwk) : jwk;
      return key.kty === 'OKP' && key.crv === 'Ed25519' && typeof key.x === 'string' ? parsePublicKey(key.x) : null;
    } catch {
      return null;
    }
  }
  return BASE64URL.test(trimmed) && Buffer.from(trimmed, 'base64url').length === 32 ? trimmed : null;
}

const publicKeyObject = (publicKey: string): KeyObject =>
  createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(publicKey, 'base64url')]), format: 'der', type: 'spki' });

/**
 * Why the checkpoint is not one `trusted` signed (its key is another, or its signature does not cover
 * its fields), or null when it is. Every field signed is in the message: an edited seq, hash or time
 * fails like a signature of another key.
 */
export function checkpointProblem(checkpoint: AuditCheckpoint, trusted: string): string | null {
  if (checkpoint.publicKey !== trusted) {
    return `it names key ${checkpointKeyId(checkpoint.publicKey)}, not the trusted checkpoint key ${checkpointKeyId(trusted)}`;
  }
  const signature = Buffer.from(checkpoint.signature, 'base64url');
  let valid = false;
  try {
    valid = signature.length === 64 && verify(null, checkpointMessage(checkpoint.seq, checkpoint.hash, checkpoint.at), publicKeyObject(trusted), signature);
  } catch {
    valid = false;
  }
  return valid ? null : 'its signature does not verify (it was not signed by that key, or a field was edited)';
}
