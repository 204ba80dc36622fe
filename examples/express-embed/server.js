// @ts-check
/**
 * Runs the example: `npm run build` once at the repository root, then
 *   SHOP_DATA_DIR=./shop-data SHOP_MASTER_KEY=$(openssl rand -hex 32) SHOP_SESSION=dev-session \
 *     node examples/express-embed/server.js
 */
import { createShopApp } from './app.js';

const required = (/** @type {string} */ name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required (see examples/express-embed/README.md)`);
  return value;
};

const { app, vault } = await createShopApp({
  dataDir: required('SHOP_DATA_DIR'),
  masterKeyHex: required('SHOP_MASTER_KEY'),
  sessions: { [required('SHOP_SESSION')]: 'developer' },
});
const port = Number(process.env.PORT ?? 3000);
const server = app.listen(port, '127.0.0.1', () => console.log(`shop listening on http://127.0.0.1:${port} (vault under /vault)`));

const stop = () => server.close(() => void vault.close());
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
