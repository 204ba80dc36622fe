import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { DumpedTables } from '../../src/ports/database-dump.port.js';
import { keyMatchesShare, shareKeyCheck } from '../keystore/local-file/master-key-shares.js';
import { CliRefusal } from './output.js';

/**
 * The backup file (`wallet-vault backup create`): one line of JSON, the header, then the payload
 * encrypted with AES-256-GCM (node's crypto) under a key derived from the master key with HKDF-SHA256
 * (a fresh salt per backup, the info string below), the header line its associated data; the GCM tag is
 * the file's last 16 bytes. So a byte changed anywhere (the header, the ciphertext, a cut) fails the tag
 * and nothing is restored. The header carries the master key's check value as a share does (a hash of
 * an HMAC of the key, never the key), so a restore given another key says so rather than "altered".
 * The payload is gzip of JSON: every table (DatabaseDump) and the local store's files (key files, HD
 * seeds, the check value and the current split), each as it is on disk, already wrapped under the master key.
 */
export const BACKUP_FORMAT = 'wallet-vault backup';
export const BACKUP_VERSION = 1;
const HKDF_INFO = 'wallet-vault backup v1: AES-256-GCM payload key';
const TAG_LENGTH = 16;
/** The header is small; a first line longer than this is not one. */
const HEADER_MAX = 4096;

export interface BackupHeader {
  readonly format: typeof BACKUP_FORMAT;
  readonly version: typeof BACKUP_VERSION;
  /** A random id, recorded by `backup.created` and `backup.restored`. */
  readonly backup: string;
  readonly created: string;
  /** The dialect the tables were read from (`sqlite`, `postgres`). */
  readonly dialect: string;
  readonly cipher: 'AES-256-GCM';
  readonly kdf: 'HKDF-SHA256';
  readonly salt: string;
  readonly iv: string;
  /** shareKeyCheck of the master key (master-key-shares.ts): which key opens it, not the key. */
  readonly keyCheck: string;
}

export interface BackupPayload {
  readonly tables: DumpedTables;
  /** File name in the key directory → its bytes (base64). */
  readonly keyFiles: Readonly<Record<string, string>>;
  /** The audit trail's last record the backup holds, or null for an empty trail. */
  readonly auditHead: { readonly seq: number; readonly hash: string } | null;
}

function payloadKey(masterKey: Buffer, salt: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, salt, HKDF_INFO, 32));
}

/** The file's bytes: the header line, the ciphertext, the tag. */
export function sealBackup(masterKey: Buffer, dialect: string, payload: BackupPayload, now: Date): { bytes: Buffer; header: BackupHeader } {
  const salt = randomBytes(32);
  const iv = randomBytes(12);
  const header: BackupHeader = {
    format: BACKUP_FORMAT,
    version: BACKUP_VERSION,
    backup: randomUUID(),
    created: now.toISOString(),
    dialect,
    cipher: 'AES-256-GCM',
    kdf: 'HKDF-SHA256',
    salt: salt.toString('base64'),
    iv: iv.toString('base64'),
    keyCheck: shareKeyCheck(masterKey),
  };
  const line = Buffer.from(`${JSON.stringify(header)}\n`, 'utf8');
  const key = payloadKey(masterKey, salt);
  try {
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(line);
    const body = Buffer.concat([cipher.update(gzipSync(Buffer.from(JSON.stringify(payload), 'utf8'))), cipher.final()]);
    return { bytes: Buffer.concat([line, body, cipher.getAuthTag()]), header };
  } finally {
    key.fill(0);
  }
}

/** The header of a backup file's bytes; BACKUP_INVALID for a file that is not one (nothing decrypted yet). */
export function readBackupHeader(bytes: Buffer): { header: BackupHeader; line: Buffer; body: Buffer } {
  const end = bytes.subarray(0, HEADER_MAX).indexOf(0x0a);
  const invalid = (why: string) => new CliRefusal(`--file: not a wallet-vault backup (${why}); nothing was restored`, 'BACKUP_INVALID');
  if (end < 0) throw invalid('no header line');
  let json: Partial<BackupHeader>;
  try {
    json = JSON.parse(bytes.subarray(0, end).toString('utf8')) as Partial<BackupHeader>;
  } catch {
    throw invalid('its header is not JSON');
  }
  if (json.format !== BACKUP_FORMAT) throw invalid(`expected "format": "${BACKUP_FORMAT}"`);
  if (json.version !== BACKUP_VERSION) throw invalid(`version ${String(json.version)}: this build reads version ${BACKUP_VERSION}`);
  const ok =
    typeof json.backup === 'string' &&
    typeof json.created === 'string' &&
    typeof json.dialect === 'string' &&
    json.cipher === 'AES-256-GCM' &&
    json.kdf === 'HKDF-SHA256' &&
    typeof json.salt === 'string' &&
    typeof json.iv === 'string' &&
    typeof json.keyCheck === 'string' &&
    /^[0-9a-f]{64}$/.test(json.keyCheck);
  if (!ok) throw invalid('its header is malformed');
  const body = bytes.subarray(end + 1);
  if (body.length < TAG_LENGTH) throw new CliRefusal('--file: the backup was altered or cut short (no authentication tag); nothing was restored', 'BACKUP_ALTERED');
  return { header: json as BackupHeader, line: bytes.subarray(0, end + 1), body };
}

/**
 * The payload of a backup, once `masterKey` is found to be the backup's (BACKUP_WRONG_KEY otherwise) and
 * the tag holds (BACKUP_ALTERED otherwise: a byte changed, added or removed anywhere in the file).
 */
export function openBackup(masterKey: Buffer, bytes: Buffer): { header: BackupHeader; payload: BackupPayload } {
  const { header, line, body } = readBackupHeader(bytes);
  if (!keyMatchesShare(masterKey, header.keyCheck)) {
    throw new CliRefusal('the master key given is not the one this backup was made under (its key check differs): give that key (its file, VAULT_MASTER_KEY, or the threshold of its shares with --share-file); nothing was restored', 'BACKUP_WRONG_KEY');
  }
  const key = payloadKey(masterKey, Buffer.from(header.salt, 'base64'));
  let plain: Buffer;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(header.iv, 'base64'));
    decipher.setAAD(line);
    decipher.setAuthTag(body.subarray(body.length - TAG_LENGTH));
    plain = Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_LENGTH)), decipher.final()]);
  } catch {
    throw new CliRefusal('--file: the backup was altered (it fails its integrity check: a byte of it changed, or it was cut short); nothing was restored', 'BACKUP_ALTERED');
  } finally {
    key.fill(0);
  }
  try {
    return { header, payload: JSON.parse(gunzipSync(plain).toString('utf8')) as BackupPayload };
  } catch {
    // Authenticated, yet not a payload: written by something else with this key.
    throw new CliRefusal('--file: the backup passes its integrity check but holds no payload this build reads; nothing was restored', 'BACKUP_INVALID');
  }
}
