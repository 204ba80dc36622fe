import type { SigningKind } from '../../signing-kind.js';

/** A Sign call: a contract's function signed for a sender through a `Signable` contract (`POST /sign`, docs/api.md). */
export const CALL_KIND = {
  name: 'call',
  standard: false,
  requestField: null,
  resultSchema: 'SignResult',
} as const satisfies SigningKind;
