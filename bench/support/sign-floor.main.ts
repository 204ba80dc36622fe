import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DurableJournal } from './durable-journal.js';
import { startSignFloor } from './sign-floor.server.js';
import { startSignPeer } from './sign-peer.server.js';
import type { ReferenceKind } from './sign-servers.js';

// Run as its own process so it gets a core of its own, as the service does. Which reference: argument 1.
const kind = (process.argv[2] ?? 'bare') as ReferenceKind;
const key = randomBytes(32);
// The journal lives in the temporary directory, on the same file system as the service's data directory.
const dir = kind === 'durable' || kind === 'durable-serial' ? mkdtempSync(path.join(tmpdir(), 'wallet-vault-floor-')) : undefined;
const journal = dir ? new DurableJournal(path.join(dir, 'signatures.jsonl'), { oneSyncAtATime: kind === 'durable-serial' }) : undefined;
const server = kind === 'peer' ? await startSignPeer(key) : await startSignFloor(key, journal);
process.stdout.write(`${server.url}\n`);
process.on('SIGTERM', () =>
  void server.close().then(() => {
    journal?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  }),
);
