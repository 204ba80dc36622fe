// @ts-check
// The passkey ceremonies, through the vendored @simplewebauthn/browser bundle (assets/simplewebauthn-browser.js,
// a classic script loaded before the modules, so its global is there when they run).

/** @returns {any} */
const lib = () => /** @type {any} */ (globalThis).SimpleWebAuthnBrowser;

/** Whether this browser can use passkeys at all (WebAuthn in a secure context). */
export const passkeysSupported = () => Boolean(lib()?.browserSupportsWebAuthn());

/**
 * Creates a passkey from the vault's PublicKeyCredentialCreationOptionsJSON; resolves to the RegistrationResponseJSON.
 * @param {unknown} optionsJSON
 */
export const createPasskey = (optionsJSON) => lib().startRegistration({ optionsJSON });

/**
 * Signs the vault's challenge with a passkey (PublicKeyCredentialRequestOptionsJSON → AuthenticationResponseJSON).
 * @param {unknown} optionsJSON
 */
export const usePasskey = (optionsJSON) => lib().startAuthentication({ optionsJSON });

/**
 * What to tell the approver when the browser's ceremony failed (not the vault's answer).
 * @param {unknown} error
 * @returns {string | null} null when it is not a WebAuthn error
 */
export function passkeyProblem(error) {
  const name = error instanceof Error ? error.name : '';
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.name : '';
  if (name === 'NotAllowedError' || cause === 'NotAllowedError') return 'The passkey prompt was closed or timed out. Nothing was sent; try again when ready.';
  if (name === 'InvalidStateError' || cause === 'InvalidStateError') return 'This authenticator already holds a passkey for this vault.';
  if (name === 'SecurityError' || cause === 'SecurityError') return 'The browser refused passkeys for this address: the console must be opened at the vault\u2019s public URL over HTTPS.';
  if (name === 'WebAuthnError' || name === 'NotSupportedError' || cause === 'NotSupportedError') return `Your passkey could not be used: ${error instanceof Error ? error.message : ''}`;
  return null;
}
