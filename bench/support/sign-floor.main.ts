import { randomBytes } from 'node:crypto';
import { startSignFloor } from './sign-floor.server.js';

// Run as its own process so it gets a core of its own, as the service does.
const floor = await startSignFloor(randomBytes(32));
process.stdout.write(`${floor.url}\n`);
process.on('SIGTERM', () => void floor.close().then(() => process.exit(0)));
