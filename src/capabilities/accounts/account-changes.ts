import { sql } from 'kysely';
import type { Db } from '../../infra/store/database.js';
import { sqliteDataVersion } from '../../infra/store/database.js';
import type { PostgresListener } from '../../infra/store/postgres-listener.js';

/** The PostgreSQL channel on which nodes announce that an account's key or tier changed. */
export const ACCOUNT_CHANGES_CHANNEL = 'atelier_account_changes';

/**
 * How a process learns that accounts may have changed elsewhere — in another process on the same
 * SQLite file (the CLI), or on another node — so that what it keeps in memory about them (the
 * API-key cache) is never trusted past a change.
 */
export interface AccountChanges {
  /**
   * A value that differs from any earlier one once accounts may have changed (here or elsewhere);
   * undefined while changes made elsewhere cannot be heard (then nothing may be trusted).
   */
  stamp(): number | undefined;
  /**
   * Records a change of accounts made in `trx` (run it inside the transaction that makes it): on
   * PostgreSQL a notification that every node hears when the transaction commits.
   */
  announce(trx: Db): Promise<void>;
  /** This process changed accounts (after the commit): its own stamp moves at once. */
  changedHere(): void;
  /**
   * Resolves when a change made elsewhere has been heard: on PostgreSQL at the next notification
   * (or reconnect), on SQLite at the next turn of the event loop (when the next read sees it).
   */
  heard(): Promise<void>;
}

/**
 * SQLite: another process's commit moves `data_version` (read once per turn of the event loop, see
 * `sqliteDataVersion`); this process's own changes move a local epoch. Any commit by another
 * process counts (the CLI rarely writes; a second process writing tasks on the same file just
 * means nothing is kept).
 */
function sqliteAccountChanges(dataVersion: () => number): AccountChanges {
  let epoch = 0;
  let seen = dataVersion();
  return {
    stamp() {
      const version = dataVersion();
      if (version !== seen) {
        seen = version;
        epoch++;
      }
      return epoch;
    },
    announce: async () => {},
    changedHere() {
      epoch++;
    },
    heard: () => new Promise((resolve) => setImmediate(resolve)),
  };
}

/**
 * PostgreSQL: a notification on `ACCOUNT_CHANGES_CHANNEL`, sent in the changing transaction (so a
 * change is never committed unannounced), moves the epoch of every node. While the listener's
 * connection is down nothing is trusted; when it comes back the epoch moves (what was missed is
 * unknown).
 */
function postgresAccountChanges(listener: PostgresListener): AccountChanges {
  let epoch = 0;
  let waiting: Array<() => void> = [];
  const moved = () => {
    epoch++;
    const heard = waiting;
    waiting = [];
    for (const resolve of heard) resolve();
  };
  listener.on(ACCOUNT_CHANGES_CHANNEL, moved);
  listener.onReconnect(moved);
  return {
    stamp: () => (listener.isListening() ? epoch : undefined),
    async announce(trx) {
      await sql`select pg_notify(${ACCOUNT_CHANGES_CHANNEL}, '')`.execute(trx);
    },
    changedHere() {
      epoch++;
    },
    heard: () => new Promise((resolve) => waiting.push(resolve)),
  };
}

/** Nothing can be heard (a store opened elsewhere and wrapped): nothing is ever trusted. */
const deaf: AccountChanges = {
  stamp: () => undefined,
  announce: async () => {},
  changedHere: () => {},
  heard: () => new Promise((resolve) => setImmediate(resolve)),
};

/**
 * The account-change signal of this store: SQLite's data version, or the PostgreSQL listener;
 * without either (a database handed in already wrapped, as some tests do) keys are always read.
 */
export function createAccountChanges(db: Db, listener: PostgresListener | undefined): AccountChanges {
  const dataVersion = sqliteDataVersion(db);
  if (dataVersion) return sqliteAccountChanges(dataVersion);
  return listener ? postgresAccountChanges(listener) : deaf;
}

/**
 * Runs a change of what authentication returns (a key revoked, an account disabled…) and announces
 * it in the same transaction, so no process's API-key cache trusts what it kept past the commit.
 */
export async function changeAnnounced<T>(
  db: Db,
  changes: AccountChanges | undefined,
  update: (executor: Db) => Promise<T>,
): Promise<T> {
  if (!changes) return update(db);
  const result = await db.transaction().execute(async (trx) => {
    const value = await update(trx);
    await changes.announce(trx);
    return value;
  });
  changes.changedHere();
  return result;
}
