import type { IncomingMessage } from 'node:http';
import zlib from 'node:zlib';
import { DomainError, ErrorCode } from '../../src/domain/errors.js';
import { tooLarge } from './json-body.js';

/** How a route takes its body: as the bytes signed (Sign), or decoded as sent (`Content-Encoding`). */
export interface BodyReading {
  readonly limit: number;
  /** Undo `Content-Encoding` (gzip, deflate, br), as Express's body parsers did; Sign's signature covers the bytes as sent. */
  readonly decode: boolean;
  /**
   * What a stream another middleware already read means: Sign cannot do without its raw bytes (an
   * error of the embedding app's set-up), any other route finds no body.
   */
  readonly consumed: 'error' | 'empty';
}

/** The request's body within `limit` bytes (by Content-Length up front, or while streaming). */
export function readRequestBody(req: IncomingMessage, given: Buffer | undefined, reading: BodyReading): Promise<Buffer> {
  if (given !== undefined) {
    if (given.length > reading.limit) return Promise.reject(tooLarge(reading.limit));
    return settle(() => (reading.decode ? decoded(given, req.headers['content-encoding'], reading.limit) : given));
  }
  // Sign's bytes are used as read: no further step (nor promise) on its path.
  if (!reading.decode) return readStream(req, reading);
  return readStream(req, reading).then((raw) => decoded(raw, req.headers['content-encoding'], reading.limit));
}

function settle(body: () => Buffer): Promise<Buffer> {
  try {
    return Promise.resolve(body());
  } catch (error) {
    return Promise.reject(error);
  }
}

function readStream(req: IncomingMessage, reading: BodyReading): Promise<Buffer> {
  const { limit } = reading;
  if (req.readableEnded) {
    if (reading.consumed === 'empty') return Promise.resolve(EMPTY);
    // Not the caller's fault: an earlier middleware of the embedding app consumed the raw bytes.
    return Promise.reject(new Error('the sign request body was already read: mount vaultRouter before body parsers such as express.json()'));
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(tooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      // A body of one chunk (a Sign body usually is) is that chunk: Buffer.concat would copy it.
      if (!failed) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    req.on('error', (error) => {
      if (!failed) {
        failed = true;
        reject(unreadable(error));
      }
    });
  });
}

const EMPTY = Buffer.alloc(0);
const unreadable = (cause?: unknown) => new DomainError(ErrorCode.MALFORMED_JSON, 'request body could not be read', { cause });

const INFLATE: Record<string, (bytes: Buffer, options: zlib.ZlibOptions) => Buffer> = {
  gzip: zlib.gunzipSync,
  deflate: zlib.inflateSync,
  br: (bytes, options) => zlib.brotliDecompressSync(bytes, { maxOutputLength: options.maxOutputLength }),
};

function decoded(raw: Buffer, header: string | undefined, limit: number): Buffer {
  const encoding = (header ?? 'identity').toLowerCase();
  if (encoding === 'identity') return raw;
  const inflate = INFLATE[encoding];
  if (inflate === undefined) throw unreadable();
  try {
    return inflate(raw, { maxOutputLength: limit });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(limit);
    throw unreadable(error);
  }
}
