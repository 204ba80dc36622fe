import { invalidArgument } from '../../src/domain/errors.js';

/** ethers reports what it refuses as `shortMessage`; a client sees it under the field it came from, never as ethers' error. */
export function refusedBy(field: string, error: unknown) {
  const reason = (error as { shortMessage?: unknown }).shortMessage;
  return invalidArgument(`${field}: ${typeof reason === 'string' ? reason : 'is not valid'}`);
}
