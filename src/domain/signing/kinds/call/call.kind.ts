import { knownVersion, unreadableHeld, type HeldFields, type HeldRequestCodec } from '../../held-request.js';
import type { SigningKind } from '../../signing-kind.js';

/** A held Sign call: its fields as Sign checked them (Sign reads them again at the release, as a request). */
export interface CallHeld extends HeldFields {
  readonly chain: string;
  readonly contract: string;
  readonly sender: string;
  readonly uniq?: string;
  readonly signer?: string;
  readonly abi: unknown;
  readonly args: readonly unknown[];
  readonly simulate?: boolean;
}

const OPTIONAL_TEXT = ['uniq', 'signer'] as const;

/** A call is held as its fields, no `kind` (the layout before kinds had a name). */
const callHeld: HeldRequestCodec<CallHeld> = {
  version: 1,
  encode: (held) => held,
  decode: (fields, version) => {
    knownVersion('call', version, 1);
    for (const field of ['chain', 'contract', 'sender'] as const) if (typeof fields[field] !== 'string') throw unreadableHeld(`${field}: must be text`);
    for (const field of OPTIONAL_TEXT) if (fields[field] !== undefined && typeof fields[field] !== 'string') throw unreadableHeld(`${field}: must be text`);
    if (typeof fields.abi !== 'object' || fields.abi === null) throw unreadableHeld('abi: must be the function ABI item');
    if (!Array.isArray(fields.args)) throw unreadableHeld('args: must be a list');
    if (fields.simulate !== undefined && typeof fields.simulate !== 'boolean') throw unreadableHeld('simulate: must be true or false');
    return fields as CallHeld;
  },
};

/** A Sign call: a contract's function signed for a sender through a `Signable` contract (`POST /sign`, docs/api.md). */
export const CALL_KIND = {
  name: 'call',
  standard: false,
  requestField: null,
  resultSchema: 'SignResult',
  held: callHeld,
} as const satisfies SigningKind;
