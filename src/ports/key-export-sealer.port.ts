/** What an export is of, bound into its encryption so that it cannot be relabelled. */
export interface ExportLabel {
  /** `wallet`: one wallet's 32-byte private key; `hd-seed`: the vault's HD seed (its 32-byte BIP-39 entropy). */
  readonly kind: 'wallet' | 'hd-seed';
  readonly vault: string;
  /** The wallet's EIP-55 address (kind `wallet`). */
  readonly wallet?: string;
  /** Shown beside a derived wallet's key, not bound (the address is). */
  readonly derivationPath?: string;
}

/** An export as written for its recipient: the label in clear, the key only inside the HPKE ciphertext. */
export interface KeyExportEnvelope extends ExportLabel {
  readonly format: string;
  readonly suite: { readonly kem: string; readonly kdf: string; readonly aead: string };
  /** Fingerprint of the recipient's public key (`sha256:<hex>`). */
  readonly recipient: string;
  /** HPKE encapsulated key, base64url. */
  readonly enc: string;
  /** HPKE ciphertext (with its tag), base64url. */
  readonly ciphertext: string;
}

/** Encrypts key material to a recipient's public key (HPKE); the core never sees how. */
export interface KeyExportSealer {
  /** The fingerprint the audit trail and governed proposals name a recipient key by. */
  fingerprint(recipientPublicKey: Uint8Array): string;
  /** Seals `plaintext` (the caller zeroes it) to the recipient, binding `label`. Refuses an invalid key with INVALID_ARGUMENT. */
  seal(plaintext: Uint8Array, recipientPublicKey: Uint8Array, label: ExportLabel): Promise<KeyExportEnvelope>;
}
