/** One place that decides between human text and `--json`, so every command prints the same way. */
export function print(json: boolean, value: unknown, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
}

export function fail(message: string, exitCode = 1): never {
  process.stderr.write(`wallet-vault: ${message}\n`);
  process.exit(exitCode);
}
