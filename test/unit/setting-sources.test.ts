import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../adapters/main/config.js';
import { validateVaultOptions, type VaultOptions } from '../../adapters/main/vault-options.js';

/**
 * A setting the service reads from the environment or the configuration file and an application hands
 * to createVault is checked by one rule (adapters/main/setting-rules.ts): the three sources accept the
 * same values, keep them the same, and refuse the same ones for the same reason, each naming the setting.
 */

const dir = mkdtempSync(path.join(tmpdir(), 'wallet-vault-setting-sources-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const port = (...methods: string[]) => Object.fromEntries(methods.map((m) => [m, () => undefined]));
/** Enough of a Persistence for the options check (nothing is opened). */
const persistence = {
  close: async () => {},
  repository: port('ping', 'findWallet', 'close'),
  signatureLog: port('find', 'attachTransaction'),
  auditLog: port('append', 'list'),
  policies: port('find', 'save'),
  jobLock: port('runExclusive'),
} as unknown as VaultOptions['persistence'];

let files = 0;
/** The value through each source: the environment, the configuration file, createVault's options. */
function sources<T>(variable: string, option: keyof VaultOptions, read: (config: ReturnType<typeof loadConfig>) => T, asOption: (value: string) => unknown = (v) => v) {
  return {
    environment: (value: string) => read(loadConfig({ [variable]: value }, dir)),
    file: (value: string) => {
      const file = path.join(dir, `config-${++files}.json`);
      writeFileSync(file, JSON.stringify({ [variable]: value }));
      return read(loadConfig({}, dir, { configFile: file }));
    },
    options: (value: string) => validateVaultOptions({ persistence, [option]: asOption(value) })[option],
  };
}

/** The reason after `<setting>:`, with the setting the message names. */
function refusal(run: () => unknown): { setting: string; reason: string } {
  try {
    run();
  } catch (error) {
    // `VAULT_X: why`, `VAULT_X (set in <file>): why`, `publicUrl: why` or `governancePins.<vault>: why`.
    const setting = /^\s*([A-Za-z_]+)(?:\.[\w-]+| \([^)]*\))?: (.*)$/;
    const match = (error as Error).message.split('\n').map((l) => setting.exec(l)).find((m) => m !== null)!;
    return { setting: match[1]!, reason: match[2]! };
  }
  throw new Error('accepted');
}

const publicUrl = sources('VAULT_PUBLIC_URL', 'publicUrl', (c) => c.publicUrl);
const authSecret = sources('VAULT_AUTH_SECRET_KEY', 'authSecret', (c) => c.authSecret);
const pins = sources(
  'VAULT_GOVERNANCE_PINS',
  'governancePins',
  (c) => c.governancePins,
  (text) => new Map([[text.slice(0, text.lastIndexOf(':')), text.slice(text.lastIndexOf(':') + 1)]]),
);

describe('one rule per setting, whichever source gives it', () => {
  it.each(['https://vault.example', 'https://Ops.Example:8443/treasury/', 'http://localhost:8080//', 'http://127.0.0.1:8080', 'http://[::1]:8080/a/'])(
    'publicUrl %s: accepted and kept the same by the environment, the file and createVault',
    (value) => {
      const kept = publicUrl.environment(value);
      expect(kept).toBeDefined();
      expect(kept!.endsWith('/')).toBe(false);
      expect(publicUrl.file(value)).toBe(kept);
      expect(publicUrl.options(value)).toBe(kept);
    },
  );

  it.each(['http://vault.example', 'http://localhost.attacker.example', 'vault.example', 'ftp://vault.example', 'https://vault.example/?a=1', 'https://vault.example/#x', 'https://user:pw@vault.example'])(
    'publicUrl %s: refused by all three for the same reason, naming VAULT_PUBLIC_URL or publicUrl',
    (value) => {
      const fromEnvironment = refusal(() => publicUrl.environment(value));
      expect(fromEnvironment.setting).toBe('VAULT_PUBLIC_URL');
      expect(refusal(() => publicUrl.file(value))).toEqual(fromEnvironment);
      expect(refusal(() => publicUrl.options(value))).toEqual({ setting: 'publicUrl', reason: fromEnvironment.reason });
    },
  );

  it('authSecret: 32 characters accepted by all three; 31 refused by all three for the same reason', () => {
    const secret = 's'.repeat(32);
    expect(authSecret.environment(secret)).toBe(secret);
    expect(authSecret.file(secret)).toBe(secret);
    expect(authSecret.options(secret)).toBe(secret);
    const short = 's'.repeat(31);
    expect(refusal(() => authSecret.environment(short))).toEqual({ setting: 'VAULT_AUTH_SECRET_KEY', reason: 'must be at least 32 characters' });
    expect(refusal(() => authSecret.file(short))).toEqual({ setting: 'VAULT_AUTH_SECRET_KEY', reason: 'must be at least 32 characters' });
    expect(refusal(() => authSecret.options(short))).toEqual({ setting: 'authSecret', reason: 'must be at least 32 characters' });
  });

  it('governancePins: a hash in any case is kept lower-case by all three; a malformed one is refused by all three', () => {
    const pin = `treasury:0x${'AB'.repeat(32)}`;
    const kept = new Map([['treasury', `0x${'ab'.repeat(32)}`]]);
    expect(pins.environment(pin)).toEqual(kept);
    expect(pins.file(pin)).toEqual(kept);
    expect(pins.options(pin)).toEqual(kept);
    for (const bad of [`treasury:0x${'ab'.repeat(31)}`, `treasury:0X${'ab'.repeat(32)}`, `treasury:${'ab'.repeat(32)}`]) {
      expect(refusal(() => pins.environment(bad)).setting).toBe('VAULT_GOVERNANCE_PINS');
      expect(refusal(() => pins.file(bad)).setting).toBe('VAULT_GOVERNANCE_PINS');
      expect(refusal(() => pins.options(bad)).setting).toBe('governancePins');
    }
  });

  it('the purge and checkpoint intervals: the environment in seconds, createVault in ms, within the same bounds', () => {
    const options = (o: Partial<VaultOptions>) => () => validateVaultOptions({ persistence, ...o });
    const key = new Uint8Array(32);
    expect(loadConfig({ VAULT_AUDIT_CHECKPOINT_INTERVAL_SECONDS: '60' }, dir).auditCheckpointIntervalMs).toBe(60_000);
    expect(options({ auditCheckpoints: { key, intervalMs: 60_000 } })).not.toThrow();
    expect(refusal(() => loadConfig({ VAULT_AUDIT_CHECKPOINT_INTERVAL_SECONDS: '59' }, dir)).setting).toBe('VAULT_AUDIT_CHECKPOINT_INTERVAL_SECONDS');
    expect(refusal(options({ auditCheckpoints: { key, intervalMs: 59_999 } })).setting).toBe('auditCheckpoints');
    expect(loadConfig({ VAULT_PURGE_INTERVAL_SECONDS: '86400' }, dir).purgeIntervalMs).toBe(86_400_000);
    expect(options({ jobs: { intervalMs: 86_400_000 } })).not.toThrow();
    expect(options({ jobs: { intervalMs: 1000 } })).not.toThrow();
    expect(refusal(() => loadConfig({ VAULT_PURGE_INTERVAL_SECONDS: '86401' }, dir)).setting).toBe('VAULT_PURGE_INTERVAL_SECONDS');
    expect(refusal(options({ jobs: { intervalMs: 86_400_001 } })).setting).toBe('jobs');
    expect(refusal(options({ jobs: { intervalMs: 999 } })).setting).toBe('jobs');
  });
});
