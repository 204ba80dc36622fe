import type { IncomingMessage } from 'node:http';
import zlib from 'node:zlib';
import { DomainError, ErrorCode } from '../../src/domain/errors.js';
import { ABI_LIMITS } from '../../src/domain/signing/abi-function.js';
import { checkJsonBounds, checkJsonText, DEFAULT_ARGS_BOUNDS, type JsonBounds, type JsonTextLimits } from './json-shape.js';

/*
 * A request's body: its bytes within the body limit (readRequestBody), then parsed as JSON within the
 * shape limits of its kind (parseJsonBody, parseSignBody), all derived from the VAULT_ARGS_MAX_* bounds.
 */

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
const tooLarge = (limit: number) => new DomainError(ErrorCode.PAYLOAD_TOO_LARGE, `request body is larger than the limit of ${limit} bytes`);

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

/**
 * No object a route takes has more members than this: a tuple has at most 256 components (ABI_LIMITS),
 * an ABI item or a body a handful of fields. JSON.parse of one object of 60 000 keys alone costs tens of
 * milliseconds, so width is refused before it.
 */
const MAX_OBJECT_MEMBERS = 1024;
/** Values an ABI item within ABI_LIMITS may hold: its parameters, each a few fields and their components. */
const ABI_VALUES = 8 * ABI_LIMITS.maxParams;

/**
 * The limits of a Sign body, from the Sign bounds: `abi` nests 2 × VAULT_ARGS_MAX_DEPTH + 2 levels (each
 * tuple level is `components[j]`) inside the body object; no array is longer than
 * VAULT_ARGS_MAX_ARRAY_LENGTH; the body holds `args` (VAULT_ARGS_MAX_VALUES) and an ABI item.
 */
export const signBodyLimits = (bounds: Pick<JsonBounds, 'maxDepth' | 'maxArrayLength' | 'maxValues'>): JsonTextLimits => ({
  maxDepth: 2 * bounds.maxDepth + 3,
  maxArrayLength: bounds.maxArrayLength,
  maxMembers: MAX_OBJECT_MEMBERS,
  maxValues: bounds.maxValues + ABI_VALUES,
});

/**
 * The limits of every other body (create, rename, submissions): the same depth and widths, and at most
 * 1 024 values, where each needs a few. Hashing a create's body for its Idempotency-Key visits every
 * value, and tens of thousands of small objects would cost tens of milliseconds.
 */
export const bodyLimits = (bounds: Pick<JsonBounds, 'maxDepth' | 'maxArrayLength' | 'maxValues'>): JsonTextLimits => ({
  ...signBodyLimits(bounds),
  maxValues: MAX_OBJECT_MEMBERS,
});

/** What parseJsonBody checks when it is given no limits: a Sign body's, the widest. */
const DEFAULT_BODY_LIMITS = signBodyLimits(DEFAULT_ARGS_BOUNDS);

/**
 * Parses a request body as JSON with the service's own messages; the one parse every route uses (Express
 * and the sign handler). Depth and width are bounded before JSON.parse (checkJsonText), so nothing
 * downstream is handed a value deeper or wider than `limits`.
 */
export function parseJsonBody(bytes: Buffer, contentType: string | undefined, limits: JsonTextLimits = DEFAULT_BODY_LIMITS): unknown {
  if (bytes.length === 0) throw new DomainError(ErrorCode.MALFORMED_JSON, 'request body is required (a JSON object)');
  // The usual value skips the regular expression.
  if (contentType !== undefined && contentType !== 'application/json' && !/^application\/(.+\+)?json\b/i.test(contentType)) {
    throw new DomainError(ErrorCode.MALFORMED_JSON, `Content-Type must be application/json (got ${JSON.stringify(contentType)})`);
  }
  const text = bytes.toString('utf8');
  checkJsonText(text, limits);
  try {
    return JSON.parse(text);
  } catch {
    throw new DomainError(ErrorCode.MALFORMED_JSON, 'request body is not valid JSON');
  }
}

/** How a Sign body is bounded under one set of VAULT_ARGS_MAX_* bounds: built once, not per request. */
interface SignBodyShape {
  readonly limits: JsonTextLimits;
  readonly args: JsonBounds;
  readonly abi: JsonBounds;
}

const shapes = new WeakMap<JsonBounds, SignBodyShape>();

function shapeOf(bounds: JsonBounds): SignBodyShape {
  let shape = shapes.get(bounds);
  if (shape === undefined) {
    // Each tuple level of an argument is two levels of its ABI item (`inputs[i].components[j]`).
    // The ABI item's own size is bounded by abi-function.ts (ABI_LIMITS), not by a count of its values.
    shape = { limits: signBodyLimits(bounds), args: bounds, abi: { ...bounds, maxDepth: 2 * bounds.maxDepth + 2, maxValues: Infinity } };
    shapes.set(bounds, shape);
  }
  return shape;
}

/**
 * A Sign body, parsed, with `args` and `abi` within `bounds`, `args` checked first: a hostile shape costs
 * no more than these bounds in what follows (coercion, encoding, the ABI parse).
 */
export function parseSignBody(bytes: Buffer, contentType: string | undefined, bounds: JsonBounds): unknown {
  const shape = shapeOf(bounds);
  const body = parseJsonBody(bytes, contentType, shape.limits);
  if (typeof body === 'object' && body !== null) {
    const { args, abi } = body as { args?: unknown; abi?: unknown };
    checkJsonBounds(args, 'args', shape.args);
    checkJsonBounds(abi, 'abi', shape.abi);
  }
  return body;
}
