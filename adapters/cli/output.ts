/**
 * One place that decides how the CLI speaks: human text or `--json` on stdout for results, and on stderr
 * for everything else (which store was opened, progress, warnings, errors), so stdout stays parseable.
 */

/** `--json` anywhere on the command line: also decides how errors are written, even usage errors. */
export const jsonRequested = (argv: readonly string[] = process.argv): boolean => argv.includes('--json');

export function print(json: boolean, value: unknown, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
}

/** A line for the operator, never part of the result: on stderr, so `--json` output stays clean. */
export function note(message: string): void {
  process.stderr.write(`wallet-vault: ${message}\n`);
}

/**
 * Exit codes: 0 success, 1 refused or failed (a domain error, a broken audit chain, a missing store),
 * 2 usage or configuration (a bad option, a bad variable). With `--json` the error is
 * `{"error": "...", "code": "..."}` on stderr.
 */
export const EXIT = { OK: 0, REFUSED: 1, USAGE: 2 } as const;

export function fail(message: string, exitCode: number = EXIT.REFUSED, code = exitCode === EXIT.USAGE ? 'USAGE' : 'FAILED'): never {
  process.stderr.write(jsonRequested() ? `${JSON.stringify({ error: message, code })}\n` : `wallet-vault: ${message}\n`);
  process.exit(exitCode);
}

/** A command that refuses to act (for example on a store that does not exist); exits 1 with this code. */
export class CliRefusal extends Error {
  override readonly name = 'CliRefusal';
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** A governed vault's key or webhook change is a proposal too (docs/governance.md): named after what was done. */
export const proposed = (vault: string | null, proposal: { id: string; documentHash: string } | undefined, effect: string): string =>
  proposal === undefined
    ? ''
    : `\nthe vault is governed: proposal ${proposal.id} (document ${proposal.documentHash}); ${effect}` +
      (vault === null ? '' : ` (wallet-vault governance proposals show --vault ${vault} --id ${proposal.id})`);
