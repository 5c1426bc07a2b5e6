import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** One SQL statement and its parameters (a Kysely query's `compile()`). */
export interface ReadQuery {
  sql: string;
  parameters: readonly unknown[];
}

/**
 * What each reader thread runs: its own read-only connection to the SQLite file (WAL: it reads the
 * last commit while the main connection writes), answering batches of queries. Plain JavaScript,
 * evaluated, so it runs the same from the sources and from the build.
 */
const READER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
parentPort.on('message', ({ id, queries }) => {
  try {
    parentPort.postMessage({ id, results: queries.map((q) => db.prepare(q.sql).all(...q.parameters)) });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message) });
  }
});`;

type Pending = { resolve(results: unknown[][]): void; reject(error: Error): void };

/**
 * Threads that run heavy reads of a SQLite store (searches) away from the event loop: better-sqlite3
 * answers synchronously, so a long read on the main connection stops every other request of the
 * node for its whole length (issue 25: 8 searches of long prompts took another account's requests
 * from 1.6 ms to 429 ms). `count` threads at most, started on first use; callers bound how many
 * reads they ask for at once (a bounded pool), each batch goes to the least busy thread.
 */
export function createSqliteReaders({ file, count }: { file: string; count: number }) {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const readers: Array<{ worker: Worker; pending: Map<number, Pending> }> = [];
  let nextId = 0;

  function start() {
    const pending = new Map<number, Pending>();
    const worker = new Worker(READER_SOURCE, { eval: true, workerData: { file, driver } });
    worker.unref();
    const reader = { worker, pending };
    const fail = (error: Error) => {
      const at = readers.indexOf(reader);
      if (at !== -1) readers.splice(at, 1);
      for (const waiting of pending.values()) waiting.reject(error);
      pending.clear();
    };
    worker.on('message', (message: { id: number; results?: unknown[][]; error?: string }) => {
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      if (message.error !== undefined) waiting?.reject(new Error(message.error));
      else waiting?.resolve(message.results ?? []);
    });
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`SQLite reader thread exited (${code})`)));
    readers.push(reader);
    return reader;
  }

  return {
    /** Runs `queries` in order on one reader thread; answers each one's rows. */
    read(queries: ReadQuery[]): Promise<unknown[][]> {
      const idle = readers.find((reader) => reader.pending.size === 0);
      const reader =
        idle ??
        (readers.length < count
          ? start()
          : readers.reduce((least, other) => (other.pending.size < least.pending.size ? other : least)));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        reader.pending.set(id, { resolve, reject });
        reader.worker.postMessage({ id, queries });
      });
    },
    async close(): Promise<void> {
      await Promise.all(readers.map((reader) => reader.worker.terminate()));
    },
  };
}

export type SqliteReaders = ReturnType<typeof createSqliteReaders>;
