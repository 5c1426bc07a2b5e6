import { createRecentMap } from '../../base/collections/recent-map.js';
import { type Db, sqliteDataVersion } from '../../infra/store/database.js';
import { readsPerTurn } from '../../infra/store/reads-per-turn.js';

/** How many accounts' history versions a process keeps (SQLite only). */
export const VERSIONS_KEPT = 10_000;

/**
 * Accounts' history versions (`generation_counts.history_version`), the key under which history
 * pages are kept (src/use-cases/read-models/creations.ts).
 *
 * On SQLite the version itself is kept in memory too, so a kept page costs no query at all. It is
 * trusted while no other process has committed (`data_version`, read once per turn) and this
 * process has not moved it: every change of this process calls `moved` in the transaction that
 * bumps it, which forgets the account's version, and a read that was under way when any version
 * moved keeps nothing (it may have read the value from before). The store's single connection
 * runs a transaction alone, so no read sees a bump before its commit.
 *
 * On PostgreSQL the version is read for every request, after it arrived: a change committed on
 * another node must be seen by the next request whatever node serves it. The reads asked for in one
 * turn share one query (`read.many`, see reads-per-turn.ts).
 */
export function createHistoryVersions(
  db: Db,
  read: {
    one(accountId: string): Promise<number>;
    /** The versions of the accounts that have one (`any($1)`: PostgreSQL only). */
    many(accountIds: string[]): Promise<Map<string, number>>;
  },
) {
  const dataVersion = sqliteDataVersion(db);
  if (dataVersion === undefined)
    return { current: readsPerTurn(read.many, 0), moved: (_accountId: string) => {} };
  const kept = createRecentMap<string, { version: number; dataVersion: number }>(VERSIONS_KEPT);
  let moves = 0;
  return {
    /** The account's version: at once when it is kept. */
    current(accountId: string): number | Promise<number> {
      const seen = dataVersion();
      const known = kept.get(accountId);
      if (known !== undefined && known.dataVersion === seen) return known.version;
      const movesBefore = moves;
      return read.one(accountId).then((version) => {
        if (moves === movesBefore) kept.set(accountId, { version, dataVersion: seen });
        return version;
      });
    },
    /** The account's version is moving in a transaction of this process. */
    moved(accountId: string): void {
      moves++;
      kept.delete(accountId);
    },
  };
}

export type HistoryVersions = ReturnType<typeof createHistoryVersions>;
