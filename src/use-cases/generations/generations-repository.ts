import { sql } from 'kysely';
import type { BoundedWorkPool } from '../../base/concurrency/bounded-work-pool.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { IdGenerator } from '../../base/runtime/ids.js';
import { compiledOnce } from '../../infra/store/compiled-once.js';
import type { Db } from '../../infra/store/database.js';
import type { SqliteReaders } from '../../infra/store/sqlite-readers.js';
import { GenerationReads } from './generation-reads.js';
import { GenerationWrites } from './generation-writes.js';
import { createHistoryVersions, type HistoryVersions } from './history-versions.js';

/**
 * Store queries for generations (one per generate request) and the creation of their tasks: the
 * writes (`generation-writes.ts`) and the reads and searches (`generation-reads.ts`), sharing the
 * accounts' history versions. Every member is bound, so callers may pass one on alone.
 */
export function createGenerationsRepository({
  db,
  clock,
  ids,
  searches,
  readers,
}: {
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  /** The pool searches of saved works run in on this node (bounded: past it, 429). */
  searches?: BoundedWorkPool;
  /** SQLite only: threads with their own connection, where searches read off the event loop. */
  readers?: SqliteReaders;
}) {
  const versions = historyVersionsOf(db);
  const writes = new GenerationWrites(db, clock, ids, versions);
  const reads = new GenerationReads(db, { searches, readers });
  return {
    /**
     * The account's history version: it moves in the transaction of every change a history page
     * can show (0 before the account's first generation). At once when it is kept (SQLite).
     */
    historyVersion: versions.current,
    requestsOf: reads.requestsOf.bind(reads),
    taskCompleted: writes.taskCompleted.bind(writes),
    historyChanged: writes.historyChanged.bind(writes),
    ownedBy: reads.ownedBy.bind(reads),
    settingsOf: reads.settingsOf.bind(reads),
    create: writes.create.bind(writes),
    markRejected: writes.markRejected.bind(writes),
    page: reads.page.bind(reads),
    savedOne: reads.savedOne.bind(reads),
    isPurged: reads.isPurged.bind(reads),
    lineage: reads.lineage.bind(reads),
    markRemoved: writes.markRemoved.bind(writes),
    removedSince: reads.removedSince.bind(reads),
  };
}

/** The accounts' history versions, read from `generation_counts` (see history-versions.ts). */
function historyVersionsOf(db: Db): HistoryVersions {
  const historyVersionOf = compiledOnce(1, (accountId: string) =>
    db.selectFrom('generation_counts').select(['history_version']).where('account_id', '=', accountId),
  );
  return createHistoryVersions(db, {
    async one(accountId) {
      const [row] = (await db.executeQuery(historyVersionOf(accountId))).rows;
      return Number(row?.history_version ?? 0);
    },
    async many(accountIds) {
      const rows = await db
        .selectFrom('generation_counts')
        .select(['account_id', 'history_version'])
        .where('account_id', '=', sql<string>`any(${accountIds})`)
        .execute();
      return new Map(rows.map((row) => [row.account_id, Number(row.history_version)]));
    },
  });
}

/**
 * A generation's catalog model, as a subquery another capability's write can embed (usage counts a
 * finished task under its generation's model, in the task's final write): the one way usage reads it.
 */
export function generationModel(executor: Db, generationId: string) {
  return executor.selectFrom('generations').select('model').where('id', '=', generationId).$asScalar();
}

export type GenerationsRepository = ReturnType<typeof createGenerationsRepository>;
