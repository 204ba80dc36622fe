import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const SOFTHSM_MODULE = ['/usr/lib/softhsm/libsofthsm2.so', '/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so'].find((p) => existsSync(p));

let home: string | undefined;

/**
 * A fresh SoftHSM2 token in this test process's own temporary token directory (SOFTHSM2_CONF must be set
 * before the module is initialised, so one directory serves the whole process; each call adds a token).
 */
export function createSoftHsmToken(label: string, pin = '123456'): { modulePath: string; tokenLabel: string; pin: string } {
  if (!SOFTHSM_MODULE) throw new Error('SoftHSM2 is not installed (apt-get install softhsm2)');
  if (!home) {
    home = mkdtempSync(path.join(tmpdir(), 'wallet-vault-softhsm-'));
    mkdirSync(path.join(home, 'tokens'));
    writeFileSync(path.join(home, 'softhsm2.conf'), `directories.tokendir = ${path.join(home, 'tokens')}\nobjectstore.backend = file\nlog.level = ERROR\n`);
    process.env.SOFTHSM2_CONF = path.join(home, 'softhsm2.conf');
    process.on('exit', () => rmSync(home!, { recursive: true, force: true }));
  }
  execFileSync('softhsm2-util', ['--init-token', '--free', '--label', label, '--so-pin', '000000', '--pin', pin], {
    env: process.env,
    stdio: 'ignore',
  });
  return { modulePath: SOFTHSM_MODULE, tokenLabel: label, pin };
}
