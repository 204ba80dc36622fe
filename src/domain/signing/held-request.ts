import { DomainError, ErrorCode } from '../errors.js';

/**
 * A held request as an approval stores it (`Approval.request`): canonical JSON of one kind's fields and
 * the `version` of the kind's codec that wrote them. Each kind reads its own fields (its codec's decode,
 * which checks their shape); the version says which layout they are in, so a kind can change what it
 * holds and still read the rows held before. A row without `version` was held before versions were
 * written: it is version 1, whose layout is the same.
 */
export const HELD_VERSION_FIELD = 'version';

/** The fields of a held request as stored, its version left out. */
export type HeldFields = Readonly<Record<string, unknown>>;

/** How one kind writes what it holds and reads it back (`Held`: the request, as the kind's release takes it). */
export interface HeldRequestCodec<Held> {
  /** The layout encode writes; decode reads it and every earlier one. */
  readonly version: number;
  /** The request as JSON fields (JSON values only: what is stored is what reads back). */
  encode(held: Held): HeldFields;
  /** The fields of a row of `version` (1 to `version`), checked: a field missing or of the wrong shape is unreadable(). */
  decode(fields: HeldFields, version: number): Held;
}

/** A held request that does not read as its kind: a stored row was altered, or a release reads another's layout. */
export const unreadableHeld = (why: string): DomainError => new DomainError(ErrorCode.INTERNAL, `held request: cannot be read (${why})`);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A stored request's text as its version and fields; a row written before versions is version 1. */
export function readHeldJson(text: string): { readonly version: number; readonly fields: HeldFields } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw unreadableHeld('it is not JSON');
  }
  if (!isRecord(parsed)) throw unreadableHeld('it is not a JSON object');
  const { [HELD_VERSION_FIELD]: version = 1, ...fields } = parsed;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) throw unreadableHeld(`version: ${JSON.stringify(version)} is no layout version`);
  return { version, fields };
}

/** A kind's fields with the version of the codec that wrote them, as they are stored. */
export const versionedHeld = (fields: HeldFields, version: number): Readonly<Record<string, unknown>> => ({ ...fields, [HELD_VERSION_FIELD]: version });

/** Refuses a version newer than the codec reads (a row written by a later release). */
export function knownVersion(kind: string, version: number, current: number): void {
  if (version > current) throw unreadableHeld(`version ${version} of a held ${kind} is newer than this release reads (${current})`);
}

/** A held standard payload: the signing wallet and what was asked, as JSON values. */
export interface StandardHeld {
  readonly address: string;
  readonly payload: unknown;
}

/**
 * The codec of a standard kind: held as `{"kind", "address", <field>}`; `payload` says what shape its
 * field has (the payload port checks the rest at the release, as it checks a request).
 */
export function standardHeldCodec(kind: string, field: string, payload: { readonly accepts: (value: unknown) => boolean; readonly shape: string }): HeldRequestCodec<StandardHeld> {
  const version = 1;
  return {
    version,
    encode: (held) => ({ kind, address: held.address, [field]: held.payload }),
    decode: (fields, at) => {
      knownVersion(kind, at, version);
      if (fields.kind !== kind) throw unreadableHeld(`kind: ${JSON.stringify(fields.kind)} is not ${kind}`);
      if (typeof fields.address !== 'string') throw unreadableHeld('address: must be the wallet address');
      if (!Object.hasOwn(fields, field) || !payload.accepts(fields[field])) throw unreadableHeld(`${field}: must be ${payload.shape}`);
      return { address: fields.address, payload: fields[field] };
    },
  };
}

/** Any JSON value but null. */
export const anyPayload = { accepts: (value: unknown) => value !== null && value !== undefined, shape: 'present' } as const;
/** A JSON object. */
export const objectPayload = { accepts: isRecord, shape: 'a JSON object' } as const;
