/** An object with the methods createVault's option check looks for, each doing nothing: for tests of the check alone, never used. */
export function shapeOnlyPersistence() {
  const ports = (...methods: string[]) => Object.fromEntries(methods.map((m) => [m, () => undefined]));
  return {
    ...ports('close'),
    repository: ports('ping', 'findWallet', 'close'),
    signatureLog: ports('find', 'attachTransaction'),
    auditLog: ports('append', 'list'),
    policies: ports('find', 'save'),
    jobLock: ports('runExclusive'),
  };
}
