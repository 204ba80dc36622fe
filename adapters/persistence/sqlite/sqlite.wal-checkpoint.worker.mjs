// The thread of WalCheckpointer (sqlite.wal-checkpointer.ts), started by adapters/system/worker-file.ts.
// Plain JavaScript so that node runs this one file both from the sources and from the package. It opens
// its own connection to the database at workerData.path and answers each 'checkpoint' with the result of
// a PASSIVE checkpoint (or the error's message); 'close' closes the connection and ends the thread.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const db = new Database(workerData.path, { fileMustExist: true });
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ result });
  } catch (error) {
    parentPort.postMessage({ error: String((error && error.message) || error) });
  }
});
