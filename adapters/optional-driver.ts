/**
 * The drivers of some adapters (better-sqlite3, pg, the AWS SDK, node-vault, pkcs11js) are optional peer
 * dependencies: an application installs only those of the adapters it uses. An adapter's entry module
 * calls this at its top level, before loading the adapter itself, so importing it without its driver
 * fails at once with the package to install rather than with a resolution error from deep inside.
 */
export async function requireDriver(driver: string, entry: string): Promise<void> {
  try {
    await import(driver);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new MissingDriverError(`wallet-vault/${entry} needs the package ${driver}, which is not installed: npm install ${driver}`, { cause: error });
    }
    throw error;
  }
}

/** An adapter's optional driver is not installed; the message names the package and the install command. */
export class MissingDriverError extends Error {
  override readonly name = 'MissingDriverError';
}
