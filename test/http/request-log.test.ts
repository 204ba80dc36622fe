import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../adapters/main/config.js';
import { createLogger } from '../../adapters/main/logger.js';
import { startServer, type RunningServer } from '../../adapters/main/server.js';
import { client } from '../support/http-client.js';
import { vaultsAndKeysOf } from '../support/test-server.js';

/** The server's log, captured line by line as JSON objects. */
function capturedLog() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger('info', stream) };
}

describe('request log lines', () => {
  let server: RunningServer;
  let dataDir: string;
  const log = capturedLog();
  let vaultId: string;
  let apiKey: string;
  let keyId: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-request-log-'));
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      VAULT_DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      VAULT_AUDIT_CHECKPOINT_INTERVAL_SECONDS: '0',
      // The test's own connections come from 127.0.0.1: a proxy whose X-Forwarded-For is believed.
      VAULT_TRUSTED_PROXIES: '127.0.0.1',
    });
    server = await startServer(config, { logger: log.logger });
    const keys = vaultsAndKeysOf(server.vault);
    vaultId = (await keys.createVault({ name: 'logged' })).id;
    ({ apiKey, id: keyId } = await keys.createApiKey(vaultId));
  });
  afterAll(async () => {
    await server?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const lineOf = (requestId: string | null) => log.lines.find((l) => l.msg === 'request' && l.requestId === requestId);

  it('name the vault, the API key id, the client address behind the trusted proxy, the route pattern, the status and the duration', async () => {
    const api = client(server.url, apiKey);
    const created = await api.post(`/api/v1/vaults/${vaultId}/wallets`, { name: 'w' }, { 'x-forwarded-for': '203.0.113.7' });
    expect(created.status).toBe(200);
    const address = created.body.data.address as string;
    const read = await api.get(`/api/v1/vaults/${vaultId}/wallets/${address}`, { 'x-forwarded-for': '198.51.100.4' });
    expect(read.status).toBe(200);
    const line = lineOf(read.headers.get('x-request-id'));
    expect(line).toMatchObject({ method: 'GET', route: '/api/v1/vaults/:vaultId/wallets/:address', status: 200, vault: vaultId, keyId, client: '198.51.100.4' });
    expect(typeof line!.ms).toBe('number');
    // The pattern, never the raw path: the address the path names is not in the line.
    expect(JSON.stringify(line)).not.toContain(address);
    expect(lineOf(created.headers.get('x-request-id'))).toMatchObject({ route: '/api/v1/vaults/:vaultId/wallets', status: 200, client: '203.0.113.7', keyId });
  });

  it('name the client of a refused request, and no vault or key it did not prove', async () => {
    const wrong = `${apiKey.slice(0, -6)}AAAAAA`;
    const refused = await client(server.url, wrong).get(`/api/v1/vaults/${vaultId}/wallets`, { 'x-forwarded-for': '192.0.2.9' });
    expect(refused.status).toBe(401);
    const line = lineOf(refused.headers.get('x-request-id'))!;
    expect(line).toMatchObject({ status: 401, client: '192.0.2.9' });
    expect(line.vault).toBeUndefined();
    expect(line.keyId).toBeUndefined();
    const health = await client(server.url).get('/healthz', { 'x-forwarded-for': '192.0.2.10' });
    expect(lineOf(health.headers.get('x-request-id'))).toMatchObject({ route: '/healthz', status: 200, client: '192.0.2.10' });
  });

  it("name the operator of an admin API request once its credential authenticated, a refusal of its role too; never the credential", async () => {
    const { credential } = await server.vault.manageOperators.create({ name: 'carol', roles: 'auditor' });
    const carol = client(server.url, credential);
    const listed = await carol.get('/api/v1/admin/vaults', { 'x-forwarded-for': '198.51.100.20' });
    expect(listed.status).toBe(200);
    expect(lineOf(listed.headers.get('x-request-id'))).toMatchObject({ route: '/api/v1/admin/vaults', status: 200, operator: 'carol', client: '198.51.100.20' });
    const refused = await carol.post('/api/v1/admin/vaults', { name: 'nope' });
    expect(refused.status).toBe(403);
    expect(lineOf(refused.headers.get('x-request-id'))).toMatchObject({ status: 403, operator: 'carol' });
    const unknown = await client(server.url, `${credential.slice(0, -6)}AAAAAA`).get('/api/v1/admin/vaults');
    expect(unknown.status).toBe(401);
    expect(lineOf(unknown.headers.get('x-request-id'))!.operator).toBeUndefined();
    expect(log.lines.map((l) => JSON.stringify(l)).join('\n')).not.toContain(credential.slice(-20));
  });

  it('never carry an API key, the Authorization header or a body', async () => {
    const marker = 'body-marker-that-must-not-be-logged';
    await client(server.url, apiKey).post(`/api/v1/vaults/${vaultId}/wallets`, { name: marker });
    const text = log.lines.map((l) => JSON.stringify(l)).join('\n');
    expect(text).not.toContain(apiKey);
    expect(text).not.toContain(apiKey.slice(-20));
    expect(text.toLowerCase()).not.toContain('bearer');
    expect(text).not.toContain(marker);
  });
});
