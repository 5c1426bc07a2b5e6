import type { Transaction } from 'kysely';
import { type Db, dialectOf } from './database.js';
import type { Database } from './schema.js';

interface Pending {
  inBatch(trx: Transaction<Database>): Promise<unknown>;
  alone(): Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Writes of one turn of the event loop committed together, on SQLite — the engine's final writes
 * (with their results' assets) and its lease renewals:
 * a burst of answers (a thousand images at once) costs one commit per turn instead of one per task
 * (each commit writes the pages it changed to the WAL: most of a burst's cost). Each write runs in
 * turn inside one transaction — a final write with its hook (usage, history version, webhooks'
 * outbox), as it would alone — and every caller hears its own answer only once that transaction has
 * committed: a task still reads completed only after its result, and everything that commits with
 * it, is stored. (Writes on the path of a next upstream call are not batched: waiting for the turn
 * slowed a slot's hand-off.)
 *
 * SQLite has one writer and one connection, so batching changes no lock order and no isolation
 * (each statement already waited for the one before). When a batch fails (one write's hook threw),
 * it rolled back whole: each of its writes then runs alone, as it would have without the batch,
 * and answers (or throws) for itself only.
 */
export function writeBatches(db: Db) {
  let queue: Pending[] = [];

  async function flush(): Promise<void> {
    const batch = queue;
    queue = [];
    if (batch.length === 1) {
      const [only] = batch as [Pending];
      return only.alone().then(only.resolve, only.reject);
    }
    let answers: unknown[];
    try {
      answers = await db.transaction().execute(async (trx) => {
        const done: unknown[] = [];
        for (const item of batch) done.push(await item.inBatch(trx));
        return done;
      });
    } catch {
      for (const item of batch) item.alone().then(item.resolve, item.reject);
      return;
    }
    for (const [i, item] of batch.entries()) item.resolve(answers[i]);
  }

  /** Runs `inBatch` in this turn's transaction (or `alone`, when it is the turn's only write). */
  return <T>(inBatch: (trx: Transaction<Database>) => Promise<T>, alone: () => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      queue.push({ inBatch, alone, resolve: resolve as (value: unknown) => void, reject });
      if (queue.length === 1) setImmediate(() => void flush());
    });
}

export type WriteBatches = ReturnType<typeof writeBatches>;

const perDatabase = new WeakMap<Db, WriteBatches | undefined>();

/** The turn's write batch of `db`, shared by its writers; undefined on PostgreSQL (writes on the pool). */
export function turnBatches(db: Db): WriteBatches | undefined {
  if (!perDatabase.has(db)) perDatabase.set(db, dialectOf(db) === 'sqlite' ? writeBatches(db) : undefined);
  return perDatabase.get(db);
}
