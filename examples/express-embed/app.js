// @ts-check
/**
 * An existing Express application (a shop's backend) that embeds the vault. It has routes and a
 * session check of its own; the vault is mounted under /vault behind that check, with SQLite and the
 * local key store chosen here in code. Nothing reads process.env in this module: server.js does.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import express from 'express';
import { createVault } from 'wallet-vault';
import { vaultRouter } from 'wallet-vault/express';
import { localFileKeyStore } from 'wallet-vault/keystores/local-file';
import { sqlitePersistence } from 'wallet-vault/persistence/sqlite';

/**
 * @typedef {object} ShopConfig
 * @property {string} dataDir Where the vault keeps `vault.db` and `keys/` (the standalone server's layout, so its CLI works on it too).
 * @property {string} masterKeyHex 32 bytes as 64 hex characters: wraps every key file. Keep it in a secret manager.
 * @property {Record<string, string>} sessions Session token → user name: this shop's stand-in for its real login.
 */

/**
 * The shop's app and the vault inside it. Close the vault when the app stops (`vault.close()`).
 * @param {ShopConfig} config
 */
export async function createShopApp(config) {
  const vault = await createVault({
    persistence: await sqlitePersistence({ path: path.join(config.dataDir, 'vault.db') }),
    keyStores: [localFileKeyStore({ keysDir: path.join(config.dataDir, 'keys'), masterKeyHex: config.masterKeyHex })],
    version: 'shop-1.0',
  });

  const app = express();
  app.disable('x-powered-by');

  // Public: the shop's own liveness route, before any check.
  app.get('/health', (_req, res) => {
    res.json({ ok: true });
  });

  // The shop's own authentication, in front of everything below, the vault included. The vault then
  // still asks for one of its API keys (Authorization: Bearer …): two locks, each with its own key.
  app.use(requireSession(config.sessions));

  // Mounted before the shop's JSON parser: the vault reads its request bodies itself (the sign route
  // checks X-Vault-Auth-Signature over the raw bytes), so no parser may consume them first.
  app.use('/vault', vaultRouter(vault, { rateLimitPerMinute: 600 }));

  app.use(express.json());
  app.get('/me', (_req, res) => {
    res.json({ user: res.locals.user });
  });
  app.post('/orders', (req, res) => {
    res.status(201).json({ user: res.locals.user, order: req.body });
  });

  return { app, vault };
}

/**
 * Refuses any request without a known `X-Session` token, with the shop's own 401 body. Tokens are
 * compared as SHA-256 digests in constant time, every one of them, so timing tells nothing.
 * @param {Record<string, string>} sessions
 * @returns {import('express').RequestHandler}
 */
function requireSession(sessions) {
  const digest = (/** @type {string} */ s) => createHash('sha256').update(s).digest();
  const known = Object.entries(sessions).map(([token, user]) => ({ hash: digest(token), user }));
  return (req, res, next) => {
    const presented = digest(req.get('x-session') ?? '');
    let user;
    for (const entry of known) if (timingSafeEqual(entry.hash, presented)) user = entry.user;
    if (user === undefined) {
      res.status(401).json({ error: 'sign in to the shop first' });
      return;
    }
    res.locals.user = user;
    next();
  };
}
